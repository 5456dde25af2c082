import BurgerMapCore
import Logging
import PostgresNIO
import Synchronization

/// `burgermap serve --read-database URL` (repeatable): streaming replicas of the primary for the
/// reads that tolerate a little lag (`LagTolerantReads`).
public struct PostgresReplicaOptions: Sendable {
    /// The replicas, each a hot standby of the primary (`pg_basebackup -R`), with the same
    /// database, user and schema.
    public var urls: [PostgresDatabaseURL]
    /// A replica further behind than this is skipped until it catches up (`--max-replica-lag`).
    public var maximumLag: Duration = .seconds(5)
    /// How often each replica is checked.
    public var checkInterval: Duration = .seconds(1)
    /// Each replica's pool. Smaller than the primary's 20: the reads it takes are short, and
    /// every API instance opens one per replica.
    public var maximumConnections = 10

    public init(urls: [PostgresDatabaseURL], maximumLag: Duration = .seconds(5)) {
        self.urls = urls
        self.maximumLag = maximumLag
    }
}

/// The engine's read replicas: one pool, stores and monitor each, and the turn that spreads
/// reads among those in use.
public final class PostgresReplicas: ReplicaSet {
    public let replicas: [PostgresReplica]
    let checkInterval: Duration
    /// Counts reads: each takes the next replica in use from here.
    private let turn = Atomic<Int>(0)

    init(_ options: PostgresReplicaOptions, schema: String?, events: PostgresEventStore, logger: Logger) {
        checkInterval = options.checkInterval
        replicas = options.urls.enumerated().map { index, url in
            PostgresReplica(
                index: index, url: url, schema: schema, maximumLag: options.maximumLag,
                maximumConnections: options.maximumConnections, events: events, logger: logger)
        }
    }

    public func nextReplica() -> (any ReadReplica)? {
        let count = replicas.count
        let start = Int(UInt(bitPattern: turn.wrappingAdd(1, ordering: .relaxed).oldValue) % UInt(count))
        for offset in 0..<count {
            let replica = replicas[(start + offset) % count]
            if replica.monitor.isInUse { return replica }
        }
        return nil
    }

    public var statuses: [ReplicaStatus] { replicas.map(\.monitor.status) }

    /// Checks every replica once, now (the monitors do it every `checkInterval`; tests call this
    /// to know the state a read will meet).
    public func checkNow() async {
        await withDiscardingTaskGroup { group in
            for replica in replicas { group.addTask { await replica.monitor.check() } }
        }
    }

    /// Runs the pools and the monitors until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            for replica in replicas {
                group.addTask { await replica.pool.run() }
                group.addTask { await replica.monitor.run(every: self.checkInterval) }
            }
        }
    }
}

/// One read replica: its pool (read-only sessions, no migrations: the schema comes from the
/// primary by replication), the stores of the lag-tolerant reads on it, and its monitor.
public final class PostgresReplica: ReadReplica {
    public let index: Int
    public let url: PostgresDatabaseURL
    let pool: PostgresPool
    let reads: LagTolerantReads
    let monitor: PostgresReplicaMonitor

    init(
        index: Int, url: PostgresDatabaseURL, schema: String?, maximumLag: Duration, maximumConnections: Int,
        events: PostgresEventStore, logger: Logger
    ) {
        self.index = index
        self.url = url
        // The primary's search_path, and sessions that refuse writes even on a server that is
        // not a standby (a URL that names the primary by mistake).
        let startup =
            (schema.map { [("search_path", "\($0), public")] } ?? []) + [
                ("default_transaction_read_only", "on")
            ]
        var connection = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: .disable)
        connection.options.additionalStartupParameters = startup
        pool = PostgresPool(
            configuration: .init(connection: connection, maximumConnections: maximumConnections), logger: logger)
        // The stores' `events` is the primary's: only their writes use it, and a replica's
        // stores are reached through `LagTolerantReads`, which has none.
        reads = LagTolerantReads(
            places: PostgresPlaceStore(pool: pool, logger: logger, events: events),
            reviews: PostgresReviewStore(pool: pool, logger: logger, events: events),
            accounts: PostgresAccountStore(pool: pool, logger: logger, events: events))
        monitor = PostgresReplicaMonitor(
            index: index, configuration: connection, maximumLag: maximumLag, logger: logger)
    }

    /// Runs `read` here unless the replica is found down first. A PostgreSQL error is the
    /// replica's (a lost connection, which takes it out of use; a query cancelled by a conflict
    /// with its replay): `ReplicaReadFailed`, so the read goes to the primary. Other errors are
    /// the read's own.
    public func run<Value: Sendable>(_ read: @escaping @Sendable (LagTolerantReads) async throws -> Value)
        async throws -> Value
    {
        let reads = reads
        let outcome = await monitor.whileInUse { () -> Result<Value, any Error> in
            do {
                return .success(try await read(reads))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case nil:
            throw ReplicaReadFailed(replica: index, underlying: ReplicaOutOfUse())
        case .success(let value)?:
            return value
        case .failure(let error)?:
            guard error is PSQLError else { throw error }
            if PostgresStoreHealth.isConnectionLost(error) { monitor.markDown(error) }
            throw ReplicaReadFailed(replica: index, underlying: error)
        }
    }

    /// The replica went out of use (found down or lagging) while a read waited on it.
    struct ReplicaOutOfUse: Error, CustomStringConvertible {
        var description: String { "the replica went out of use during the read" }
    }
}
