import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import Logging

/// Where the data lives: the SQLite file in the data folder (the default), or PostgreSQL with
/// PostGIS when a database URL is given (`--database` or `BURGERMAP_DATABASE_URL`).
struct StorageOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "postgres://USER:PASSWORD@HOST:PORT/DATABASE to use PostgreSQL + PostGIS (default: BURGERMAP_DATABASE_URL; none: the SQLite file in the data folder).",
            valueName: "url"))
    var database: String?
    @OptionGroup var data: DataOptions

    /// The database URL from the option or the environment; `nil` keeps SQLite.
    var databaseURL: String? {
        let url = database ?? ProcessInfo.processInfo.environment["BURGERMAP_DATABASE_URL"]
        return url?.isEmpty == false ? url : nil
    }

    func validate() throws {
        if let databaseURL {
            do {
                _ = try PostgresDatabaseURL(databaseURL)
            } catch {
                throw ValidationError("--database: \(error)")
            }
        }
    }

    /// Opens the configured engine (migrating it), runs `body` with its stores, and closes it.
    /// PostgreSQL's connection pool (and its read replicas', `burgermap serve --read-database`)
    /// runs beside `body` until it returns.
    /// - Parameter existing: the command only reads or changes what is there (`sources`,
    ///   `remove-source`, `backup`, `admin`): a data folder without a database is an error that
    ///   says where it looked, never a new empty database made there.
    func withStores<Result: Sendable>(
        logger: Logger, replicas: PostgresReplicaOptions? = nil, existing: Bool = false,
        _ body: @Sendable (ServiceStores, Engine) async throws -> Result
    ) async throws -> Result {
        guard let databaseURL else {
            if existing { try data.requireDatabase() }
            let database = try AppDatabase(dataDirectory: data.dataDirectory)
            return try await body(ServiceStores(database), .sqlite(database))
        }
        let url = try PostgresDatabaseURL(databaseURL)
        return try await PostgresEngine.withEngine(url: url, replicas: replicas, logger: logger) { engine in
            try await body(engine.stores, .postgres(engine))
        }
    }

    /// The engine behind the stores, for the commands that need more than the stores.
    enum Engine: Sendable {
        case sqlite(AppDatabase)
        case postgres(PostgresEngine)
    }
}
