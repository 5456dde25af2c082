import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus

/// What the service needs to run: where to listen and where its data lives.
public struct ServiceConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var dataDirectory: URL
    public var logLevel: Logger.Level
    /// How long access tokens live (`--access-token-ttl`, 5 minutes by default).
    public var accessTokenLifetime: Duration = .seconds(300)
    /// How long refresh tokens live (`--refresh-token-ttl`, 30 days by default).
    public var refreshTokenLifetime: Duration = .seconds(30 * 24 * 3600)

    public init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL, logLevel: Logger.Level = .info) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
    }
}

/// The parts every route handler shares.
public struct ServiceDependencies: Sendable {
    public var database: AppDatabase
    public var secret: ServiceSecret
    public var accounts: AccountServices

    public init(database: AppDatabase, secret: ServiceSecret, accounts: AccountServices) {
        self.database = database
        self.secret = secret
        self.accounts = accounts
    }
}

/// The process-wide Prometheus registry behind swift-metrics (it can be bootstrapped only once).
public enum ServiceMetrics {
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}

/// Builds the router with every route and middleware; tests call this with a temporary database.
public func buildRouter(_ dependencies: ServiceDependencies) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: LogRequestsMiddleware(.info))
    let database = dependencies.database
    let cursors = CursorCodec(secret: dependencies.secret)
    let authentication = AccessTokenMiddleware(tokens: dependencies.accounts.accessTokens, database: database)
    router.addRoutes(ServiceController(database: database, metrics: ServiceMetrics.registry).endpoints)
    router.addRoutes(
        PlacesController(store: database, cursors: cursors, authentication: authentication).endpoints,
        atPath: "/v1/places")
    router.addRoutes(AuthController(database: database, accounts: dependencies.accounts).endpoints, atPath: "/v1/auth")
    router.addRoutes(
        UsersController(database: database, authentication: authentication).endpoints, atPath: "/v1/users")
    return router
}

/// Builds the application: opens (creating and migrating) the database in the data folder and
/// binds the router to the configured address.
public func buildApplication(_ configuration: ServiceConfiguration) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "burgermap")
    logger.logLevel = configuration.logLevel
    let database = try AppDatabase(dataDirectory: configuration.dataDirectory)
    let secret = try ServiceSecret.loadOrCreate(in: configuration.dataDirectory)
    _ = ServiceMetrics.registry
    let signingKey = try AccessTokens.signingKey(environment: ProcessInfo.processInfo.environment, secret: secret)
    let accounts = AccountServices(
        accessTokens: await AccessTokens(key: signingKey, lifetime: configuration.accessTokenLifetime),
        refreshLifetime: configuration.refreshTokenLifetime)
    let router = buildRouter(ServiceDependencies(database: database, secret: secret, accounts: accounts))
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "BurgerMap"),
        logger: logger)
}
