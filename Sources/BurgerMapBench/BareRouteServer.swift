import ArgumentParser
import BurgerMapCore
import Hummingbird
import Logging

/// `bare-route`: the ceiling of `scripts/bench-ceiling`, a Hummingbird application with one route
/// that answers a constant, built by the same `swift build -c release` with the same Hummingbird
/// as the service. Whatever the service's routes cost beyond this is the service's own: its
/// middleware, logging, metrics, database hops and JSON.
struct BareRouteServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bare-route",
        abstract: "Serves GET / with a constant (the HTTP benchmarks' ceiling) until stopped.")

    @Option(help: "The loopback port.") var port = 18090

    func run() async throws {
        var logger = Logger(label: "bare-route")
        logger.logLevel = .warning
        let router = Router()
        router.get("/") { _, _ in "ok" }
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        try await application.runService()
    }
}
