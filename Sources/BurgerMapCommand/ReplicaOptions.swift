import ArgumentParser
import BurgerMap
import BurgerMapPostgres

/// `burgermap serve`'s options for PostgreSQL read replicas (docs/several-instances.md).
struct ReplicaOptions: ParsableArguments {
    @Option(
        name: .customLong("read-database"),
        help: ArgumentHelp(
            "A streaming replica of --database for the reads that tolerate a little lag (nearby, viewport, clusters, search, public review lists, profiles); repeatable: reads are spread across them.",
            valueName: "url"))
    var readDatabases: [String] = []
    @Option(
        name: .customLong("read-your-writes"),
        help: ArgumentHelp(
            "Seconds after a write during which its writer's signed-in reads go to the primary (default 5).",
            valueName: "seconds"))
    var readYourWrites: Double?
    @Option(
        name: .customLong("max-replica-lag"),
        help: ArgumentHelp(
            "A replica further behind than this many seconds is skipped until it catches up (default 5).",
            valueName: "seconds"))
    var maxReplicaLag: Double?

    static let defaultSeconds = 5.0

    /// Checks the options against the engine: `databaseURL` is `nil` for SQLite.
    func validate(databaseURL: String?) throws {
        guard !readDatabases.isEmpty else {
            if readYourWrites != nil || maxReplicaLag != nil {
                throw ValidationError("--read-your-writes and --max-replica-lag need --read-database")
            }
            return
        }
        guard databaseURL != nil else {
            throw ValidationError(
                "--read-database needs PostgreSQL (--database or BURGERMAP_DATABASE_URL): the SQLite engine has no replicas"
            )
        }
        for text in readDatabases {
            do {
                _ = try PostgresDatabaseURL(text)
            } catch {
                throw ValidationError("--read-database: \(error)")
            }
        }
        for (name, value) in [("--read-your-writes", readYourWrites), ("--max-replica-lag", maxReplicaLag)] {
            if let value, !(0...3600).contains(value) {
                throw ValidationError("\(name) must be 0 to 3600 seconds")
            }
        }
    }

    /// The engine's replica options; `nil` without `--read-database`.
    func postgresOptions() throws -> PostgresReplicaOptions? {
        guard !readDatabases.isEmpty else { return nil }
        return PostgresReplicaOptions(
            urls: try readDatabases.map { try PostgresDatabaseURL($0) },
            maximumLag: .milliseconds(Int64((maxReplicaLag ?? Self.defaultSeconds) * 1000)))
    }

    /// `--read-your-writes` applied to `configuration`.
    func apply(to configuration: inout ServiceConfiguration) {
        configuration.readYourWrites = .milliseconds(Int64((readYourWrites ?? Self.defaultSeconds) * 1000))
    }
}
