import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import Hummingbird
import Logging

/// `bare-route`: the ceiling of `scripts/bench-ceiling`, a Hummingbird application built by the
/// same `swift build -c release` with the same Hummingbird as the service. `GET /` answers a
/// constant; with a database (`--data-dir` or `--database-url`), `SameWorkRoutes` add nearby, a
/// place's reviews and the feed doing the same store call and writing the same JSON as the
/// service's routes, with nothing around them. Whatever the service's routes cost beyond these is
/// the path around the work: its middleware, logging, metrics, authentication and cursors.
struct BareRouteServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bare-route",
        abstract:
            "Serves GET / with a constant (the HTTP benchmarks' ceiling), and the same-work routes, until stopped.")

    @Option(help: "The loopback port.") var port = 18090
    @Option(help: "A SQLite data folder (the service's): serve the same-work routes on it.") var dataDir: String?
    @Option(help: "A PostgreSQL URL (the service's database): serve the same-work routes on it.")
    var databaseURL: String?

    func run() async throws {
        var logger = Logger(label: "bare-route")
        logger.logLevel = .warning
        if let databaseURL {
            let quiet = logger
            try await PostgresEngine.withEngine(url: try PostgresDatabaseURL(databaseURL), logger: quiet) { engine in
                try await serve(stores: engine.stores, logger: quiet)
            }
        } else if let dataDir {
            let database = try AppDatabase(dataDirectory: URL(fileURLWithPath: dataDir))
            try await serve(stores: ServiceStores(database), logger: logger)
        } else {
            try await serve(stores: nil, logger: logger)
        }
    }

    private func serve(stores: ServiceStores?, logger: Logger) async throws {
        let router = Router()
        router.get("/") { _, _ in "ok" }
        if let stores { SameWorkRoutes.add(to: router, stores: stores) }
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        try await application.runService()
    }
}
