import ArgumentParser
import BurgerMap
import Foundation
import Hummingbird

/// The `burgermap` command line: `serve` and `import`.
@main
struct BurgerMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "burgermap",
        abstract: "A map-based place review service.",
        subcommands: [Serve.self, Import.self])
}

/// Options that every subcommand shares.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "Folder for the database and photos.")
    var dataDir: String = "burgermap-data"

    var dataDirectory: URL { URL(fileURLWithPath: dataDir, isDirectory: true) }
}

/// `burgermap serve`: runs the HTTP API.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP API.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080
    @Option(help: "Lifetime of access tokens, in seconds.") var accessTokenTtl = 300
    @Option(help: "Lifetime of refresh tokens, in seconds.") var refreshTokenTtl = 30 * 24 * 3600
    @OptionGroup var data: DataOptions

    func validate() throws {
        guard accessTokenTtl > 0, refreshTokenTtl > 0 else {
            throw ValidationError("token lifetimes must be positive numbers of seconds")
        }
    }

    func run() async throws {
        var configuration = ServiceConfiguration(host: host, port: port, dataDirectory: data.dataDirectory)
        configuration.accessTokenLifetime = .seconds(accessTokenTtl)
        configuration.refreshTokenLifetime = .seconds(refreshTokenTtl)
        let app = try await buildApplication(configuration)
        try await app.runService()
    }
}
