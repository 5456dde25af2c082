import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing

@testable import BurgerMapSQLite

/// A background task run as a service of the application under test.
struct TestServiceTask: Service {
    let body: @Sendable () async -> Void
    init(_ body: @escaping @Sendable () async -> Void) { self.body = body }
    func run() async throws { await cancelWhenGracefulShutdown { await body() } }
}

/// A temporary data folder (photos, and the SQLite file) and a real storage engine: SQLite +
/// SpatiaLite in the folder, or PostgreSQL + PostGIS in a schema of its own on the cluster that
/// scripts/postgres starts. Removed afterwards (the cluster goes with its script).
final class TestEnvironment: @unchecked Sendable {
    let folder: URL
    let engine: StoreEngine
    /// The stores of the engine, as the router uses them.
    let stores: ServiceStores
    private let sqlite: AppDatabase?
    /// The PostgreSQL engine, when `engine` is `.postgres`.
    let postgres: PostgresEngine?
    /// Runs the PostgreSQL pool while the environment lives.
    private let pool: Task<Void, Never>?
    /// The SQLite database, for the tests that are about the SQLite engine itself (the import,
    /// backup, and store-level checks); never used by a test that runs on both engines.
    var database: AppDatabase { sqlite! }
    /// Photo processing and files under the same data folder.
    var media: MediaServices
    let secret: ServiceSecret
    /// The service's configuration for the routers this environment builds, as `burgermap serve`
    /// would make it, with the environment's folder and secret, and write limits that no test
    /// reaches unless it sets them (tests seed dozens of reviews and comments by one user in a
    /// moment; `WriteLimitTests` sets its own). Tests change its fields directly.
    var configuration: ServiceConfiguration
    /// When set, requests read this clock instead of the system's (and so does `configuration`).
    var clock: TestClock? {
        didSet { configuration.clock = clock.map { $0.read } ?? { Timestamp.now() } }
    }

    /// An environment on SQLite, with photos in `photos` (by default `PhotoBackend.configured`).
    convenience init(photos: PhotoBackend = .configured) throws {
        let folder = Self.newFolder()
        let database = try AppDatabase(dataDirectory: folder)
        try self.init(folder: folder, engine: .sqlite, sqlite: database, postgres: nil, photos: photos)
    }

    /// An environment on `engine`, with photos in `photos` (by default `PhotoBackend.configured`);
    /// on PostgreSQL with `replicas` (the read-replica tests).
    convenience init(
        _ engine: StoreEngine, photos: PhotoBackend = .configured, replicas: PostgresReplicaOptions? = nil
    ) async throws {
        guard engine == .postgres else {
            try self.init(photos: photos)
            return
        }
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var logger = Logger(label: "burgermap-tests.postgres")
        logger.logLevel = .error
        let postgres = try await PostgresEngine.open(
            url: try testDatabaseURL(), schema: schema, maximumConnections: 4, replicas: replicas, logger: logger)
        try self.init(folder: Self.newFolder(), engine: .postgres, sqlite: nil, postgres: postgres, photos: photos)
    }

    private init(
        folder: URL, engine: StoreEngine, sqlite: AppDatabase?, postgres: PostgresEngine?, photos: PhotoBackend
    ) throws {
        self.folder = folder
        self.engine = engine
        let secret = ServiceSecret.random()
        self.secret = secret
        configuration = Self.testConfiguration(folder: folder, secret: secret)
        self.sqlite = sqlite
        self.postgres = postgres
        if let postgres {
            stores = postgres.stores
            pool = Task { try? await postgres.run() }
        } else {
            stores = ServiceStores(sqlite!)
            pool = nil
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        switch photos {
        case .folder: media = try MediaServices(dataDirectory: folder)
        case .s3: media = MediaServices(storage: PhotoBucket(client: try TestS3.client(), prefix: TestS3.newPrefix()))
        }
    }

    private static func newFolder() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("burgermap-tests-\(UUID().uuidString)", isDirectory: true)
    }

    deinit {
        // The pool closes its connections; the schema stays until the throw-away cluster goes.
        pool?.cancel()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The configuration a new environment starts from (see `configuration`).
    private static func testConfiguration(folder: URL, secret: ServiceSecret) -> ServiceConfiguration {
        var configuration = ServiceConfiguration(dataDirectory: folder)
        configuration.secret = secret
        for action in WriteAction.allCases {
            configuration.writeLimits[action] = WriteLimit(count: 1_000_000, seconds: 60)
        }
        return configuration
    }

    /// The service's real router on this engine and photo folder, wired as `burgermap serve`
    /// wires it (`buildDependencies`), with real token signing and bcrypt.
    func makeRouter(servesMetrics: Bool = true) async throws -> Router<AppRequestContext> {
        buildRouter(
            try await buildDependencies(configuration, stores: stores, media: media), servesMetrics: servesMetrics)
    }

    /// Runs `body` against the service on a real loopback socket, with its real server
    /// (connection limits included), and gives it the port.
    func withLiveClient(
        logger: Logger = Logger(label: "burgermap-tests"), limits: ConnectionLimits = ConnectionLimits(),
        _ body: @escaping @Sendable (Int, any TestClientProtocol) async throws -> Void
    ) async throws {
        let app = Application(
            router: try await makeRouter(), server: .guardedHTTP1(limits),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await app.test(.live) { client in try await body(try #require(client.port), client) }
    }

    /// Applies every event written so far to the notification lists, as the worker of a
    /// running service does after each write (no waiting for its wake-up).
    func settleNotifications() async throws {
        try await NotificationWorker(store: stores.notifications, events: EventLog(store: stores.events)).catchUp()
    }

    /// Runs `body` against the whole service on a loopback socket: its real server, and the event
    /// log, notification worker, streams and push deliveries running beside it as in `serve`.
    func withRunningService(
        limits: ConnectionLimits = ConnectionLimits(),
        _ body: @escaping @Sendable (Int, any TestClientProtocol, ServiceDependencies) async throws -> Void
    ) async throws {
        let dependencies = try await buildDependencies(configuration, stores: stores, media: media)
        var logger = Logger(label: "burgermap-tests")
        logger.logLevel = .error
        let log = EventLog(store: stores.events, pollInterval: .milliseconds(200), pruneInterval: nil)
        let app = Application(
            router: buildRouter(dependencies), server: .guardedHTTP1(limits),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            services: [
                TestServiceTask { await log.run() }, TestServiceTask { await dependencies.notifications.run() },
            ],
            logger: logger)
        try await app.test(.live) { client in try await body(try #require(client.port), client, dependencies) }
    }

    /// Runs `body` against the router in process (no sockets).
    func withClient(
        logger: Logger = Logger(label: "burgermap-tests"),
        _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let app = Application(router: try await makeRouter(), logger: logger)
        guard let clock else { return try await app.test(.router, body) }
        try await clock.run { try await app.test(.router, body) }
    }

    /// Runs `body` against the router in process and returns what it returns.
    func withClientReturning<Value: Sendable>(
        logger: Logger, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let app = Application(router: try await makeRouter(), logger: logger)
        guard let clock else { return try await app.test(.router, body) }
        return try await clock.run { try await app.test(.router, body) }
    }

    /// Writes `text` to a file in the data folder and returns its URL.
    func file(_ name: String, _ text: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Stores places directly through the storage layer, without a creator (as an import does).
    @discardableResult
    func insert(_ drafts: [PlaceDraft]) async throws -> [Place] {
        if let postgres { return try await PostgresHarness(engine: postgres).insert(drafts) }
        var places: [Place] = []
        for draft in drafts {
            places.append(try await database.insertPlace(draft))
        }
        return places
    }
}

/// Reference great-circle distance, written independently of the service's C implementation.
func referenceDistance(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
    let radians = Double.pi / 180
    let dLat = (lat2 - lat1) * radians
    let dLng = (lng2 - lng1) * radians
    let a = pow(sin(dLat / 2), 2) + cos(lat1 * radians) * cos(lat2 * radians) * pow(sin(dLng / 2), 2)
    return 2 * 6_371_008.8 * asin(min(1, sqrt(a)))
}

/// Every point within `radius` metres, nearest first and ties by id: the answer a nearby search
/// must give, computed the slow way.
func bruteForceNearest(
    _ points: [(id: Int64, lat: Double, lng: Double)], lat: Double, lng: Double, radius: Double
) -> [(distance: Double, id: Int64)] {
    points
        .map { (distance: referenceDistance(lat, lng, $0.lat, $0.lng), id: $0.id) }
        .filter { $0.distance <= radius }
        .sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
}

/// Decodes a JSON response body into loosely typed values, as a client would see it.
func json(_ response: TestResponse) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body))
    return try #require(object as? [String: Any])
}

/// Collects every log line (message and metadata) written through it, for tests that check
/// what the service logs.
final class CapturedLogs: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var text: String { lock.withLock { lines.joined(separator: "\n") } }

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    /// A logger at trace level that writes here.
    var logger: Logger {
        var logger = Logger(label: "captured") { _ in Handler(logs: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            logs.append("\(event.level) \(event.message) \(merged)")
        }
    }
}
