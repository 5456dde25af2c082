import BurgerMapCore
import Logging
import PostgresNIO
import ServiceLifecycle

/// The PostgreSQL + PostGIS storage engine: a pool of connections (`PostgresPool`) on a
/// migrated database, and the stores built on it.
///
/// `open` first connects once on its own, so that a wrong URL, an unreachable server, a refused
/// login or a missing PostGIS fails at once with a message saying which (the pool would retry
/// quietly instead), and migrates on that connection. The pool then only works while `run()` is
/// running: add the engine to a `ServiceGroup`, or use `withEngine`, which runs it in a task.
public final class PostgresEngine: Service, Sendable {
    public let url: PostgresDatabaseURL
    /// The schema the tables live in (`nil`: the user's default `search_path`).
    public let schema: String?
    public let pool: PostgresPool
    public let places: PostgresPlaceStore
    public let accounts: PostgresAccountStore
    public let photos: PostgresPhotoStore
    public let health: PostgresStoreHealth
    public let throttle: PostgresLoginThrottleStore
    public let reviews: PostgresReviewStore
    public let social: PostgresSocialStore
    public let feed: PostgresFeedStore
    public let posts: PostgresPostStore
    public let writeLimits: PostgresWriteLimitStore
    public let moderation: PostgresModerationStore
    public let blocks: PostgresBlockStore
    public let reports: PostgresReportStore
    /// The `events` table, and the listener that hears other instances' events.
    public let events: PostgresEventStore
    /// Notification groups, settings and stream tickets, written by the notification worker.
    public let notifications: PostgresNotificationStore
    /// Push subscriptions and the deliveries waiting for them.
    public let push: PostgresPushStore
    /// The OGC API – Features collections.
    public let features: PostgresFeatureStore
    /// The read replicas (`--read-database`), if any.
    public let replicas: PostgresReplicas?
    let logger: Logger

    private init(
        url: PostgresDatabaseURL, schema: String?, pool: PostgresPool,
        probeConfiguration: PostgresConnection.Configuration, replicas: PostgresReplicaOptions?, logger: Logger
    ) {
        self.url = url
        self.schema = schema
        self.pool = pool
        self.logger = logger
        let events = PostgresEventStore(
            pool: pool, connectionConfiguration: probeConfiguration, schema: schema, logger: logger)
        self.events = events
        places = PostgresPlaceStore(pool: pool, logger: logger, events: events)
        accounts = PostgresAccountStore(pool: pool, logger: logger, events: events)
        photos = PostgresPhotoStore(pool: pool, logger: logger)
        health = PostgresStoreHealth(pool: pool, probeConfiguration: probeConfiguration, logger: logger)
        throttle = PostgresLoginThrottleStore(pool: pool, logger: logger)
        reviews = PostgresReviewStore(pool: pool, logger: logger, events: events)
        social = PostgresSocialStore(pool: pool, logger: logger, events: events)
        feed = PostgresFeedStore(pool: pool, logger: logger)
        posts = PostgresPostStore(pool: pool, logger: logger)
        writeLimits = PostgresWriteLimitStore(pool: pool, logger: logger)
        moderation = PostgresModerationStore(pool: pool, logger: logger, events: events)
        blocks = PostgresBlockStore(pool: pool, logger: logger, events: events)
        reports = PostgresReportStore(pool: pool, logger: logger, events: events)
        notifications = PostgresNotificationStore(pool: pool, logger: logger, events: events)
        push = PostgresPushStore(pool: pool, logger: logger)
        features = PostgresFeatureStore(pool: pool, logger: logger)
        self.replicas = replicas.flatMap { options in
            options.urls.isEmpty ? nil : PostgresReplicas(options, schema: schema, events: events, logger: logger)
        }
    }

    /// Every store of the engine, as the HTTP layer uses them.
    public var stores: ServiceStores {
        ServiceStores(
            places: places, accounts: accounts, reviews: reviews, photos: photos, social: social, feed: feed,
            health: health, throttle: throttle, posts: posts, writeLimits: writeLimits, moderation: moderation,
            blocks: blocks, reports: reports, events: events, idempotency: reviews, notifications: notifications,
            push: push, features: features, replicas: replicas)
    }

    /// Checks the server, creates PostGIS and the schema when missing, applies the migrations,
    /// and builds the pool (which serves queries once `run()` runs).
    /// - Parameters:
    ///   - schema: a schema of the engine's own (created when missing, put first on the
    ///     `search_path`); lower-case letters, digits and underscores.
    ///   - replicas: streaming replicas for the reads that tolerate a little lag; not connected
    ///     here: one that does not answer yet is skipped until it does.
    public static func open(
        url: PostgresDatabaseURL, schema: String? = nil, maximumConnections: Int = 20,
        replicas: PostgresReplicaOptions? = nil, logger: Logger = Logger(label: "burgermap.postgres")
    ) async throws -> PostgresEngine {
        if let schema, !isPlainIdentifier(schema) { throw PostgresEngineError.invalidSchema(schema) }
        // The schema first; PostGIS's types and functions live in `public`.
        let startup = schema.map { [("search_path", "\($0), public")] } ?? []

        var connectionConfiguration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: .disable)
        connectionConfiguration.options.additionalStartupParameters = startup
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: connectionConfiguration, id: 0, logger: logger)
        } catch {
            throw PostgresEngineError.connecting(error, to: url)
        }
        do {
            try await PostgresMigrations.migrate(connection, schema: schema, logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            if let error = error as? PostgresEngineError { throw error }
            if let (state, message) = PostgresEngineError.serverMessage(error) {
                throw PostgresEngineError.server("\(message) (SQLSTATE \(state))")
            }
            throw error
        }

        let pool = PostgresPool(
            configuration: .init(connection: connectionConfiguration, maximumConnections: maximumConnections),
            logger: logger)
        return PostgresEngine(
            url: url, schema: schema, pool: pool, probeConfiguration: connectionConfiguration,
            replicas: replicas, logger: logger)
    }

    /// Runs the pool (and the replicas' pools and monitors) until the task is cancelled or the
    /// service group shuts down.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.pool.run() }
            group.addTask { await self.health.monitor() }
            if let replicas = self.replicas { group.addTask { await replicas.run() } }
        }
    }

    /// Opens an engine, runs its pool in a child task while `body` runs, and stops it afterwards.
    public static func withEngine<Result: Sendable>(
        url: PostgresDatabaseURL, schema: String? = nil, maximumConnections: Int = 20,
        replicas: PostgresReplicaOptions? = nil, logger: Logger = Logger(label: "burgermap.postgres"),
        _ body: @Sendable (PostgresEngine) async throws -> Result
    ) async throws -> Result {
        let engine = try await open(
            url: url, schema: schema, maximumConnections: maximumConnections, replicas: replicas, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            defer { group.cancelAll() }
            return try await body(engine)
        }
    }

    /// Whether `name` can go into SQL as an identifier without quoting (it is never a value a
    /// client sends, but the check keeps it so).
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.count <= 63
            && name.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "_")
            }
    }
}
