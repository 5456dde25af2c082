import BurgerMapCore
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// The parts every route handler shares: the configuration as given (each setting read from
/// it where it is used, never copied into a field of its own) and what was built from it.
public struct ServiceDependencies: Sendable {
    /// The service's settings (`burgermap serve`'s options, or a test's).
    public var configuration: ServiceConfiguration
    /// One store per feature, from the configured engine.
    public var stores: ServiceStores
    public var secret: ServiceSecret
    public var accounts: AccountServices
    public var media: MediaServices
    /// The viewports and filtered nearby searches that may run at once (half the cores), and
    /// how many more may wait (`ReadGate`).
    public var expensiveReads = ReadGate()
    /// The events of every write, for the parts of the service that react to them.
    public var events: EventLog
    /// The notification worker, streams and push deliveries.
    public var notifications: NotificationServices
    /// The vector tiles' cache and the invalidator that keeps it exact.
    public var tiles: TileServices
    /// Where the reads that tolerate a little lag go: the primary, or with `stores.replicas`
    /// the replicas under the read-your-writes rule.
    public var reads: ReadRouting

    public init(
        configuration: ServiceConfiguration, stores: ServiceStores, secret: ServiceSecret,
        accounts: AccountServices, media: MediaServices, events: EventLog, notifications: NotificationServices,
        tiles: TileServices
    ) {
        self.configuration = configuration
        self.stores = stores
        reads = ReadRouting(router: LagTolerantRouter(primary: stores.lagTolerantReads), tokens: accounts.accessTokens)
        self.secret = secret
        self.accounts = accounts
        self.media = media
        self.events = events
        self.notifications = notifications
        self.tiles = tiles
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
/// With `servesMetrics` false, `/metrics` is left to the metrics listener (`buildMetricsRouter`).
public func buildRouter(_ dependencies: ServiceDependencies, servesMetrics: Bool = true) -> Router<AppRequestContext> {
    var dependencies = dependencies
    dependencies.media.rows = dependencies.stores.photos
    // HEAD wherever GET is: RFC 9110 asks every general-purpose server for both.
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    // The client first (the access log names it), then the access log, outside compression so
    // that it counts the bytes sent and the time compression takes; compression outside the
    // problem middleware, so that problem documents are compressed too. Without trusted proxies
    // the client is the socket peer, set with the context: no middleware for it.
    if !dependencies.configuration.trustedProxies.networks.isEmpty {
        router.add(middleware: ClientAddressMiddleware(trustedProxies: dependencies.configuration.trustedProxies))
    }
    router.add(middleware: AccessLogMiddleware(enabled: dependencies.configuration.accessLog))
    router.add(middleware: ResponseHeadersMiddleware())
    router.add(middleware: ResponseCompressionMiddleware())
    let health = dependencies.stores.health
    let storage = dependencies.media.storage
    let faults = StorageFaults(
        probe: {
            if let fault = await health.probeWrite() { return fault }
            return await storage.probeWrite()
        }, now: dependencies.configuration.clock)
    router.add(
        middleware: ProblemMiddleware(
            isOutage: { health.isOutage($0) },
            storageFault: { health.storageFault($0) ?? ($0 as? PhotoStorageError)?.fault }, faults: faults))
    if let links = dependencies.media.publicPhotoURLs {
        router.add(middleware: PublicPhotoLinksMiddleware(links: links))
    }
    router.add(middleware: PlaceReadingMiddleware(clock: dependencies.configuration.clock))
    router.add(middleware: ExpectContinueMiddleware())
    router.add(middleware: OutageMiddleware(health: health))
    router.add(middleware: RequestMetricsMiddleware())
    let stores = dependencies.stores
    let cursors = CursorCodec(secret: dependencies.secret)
    let reads = dependencies.reads
    let signedIn = SignedInUsers(
        accounts: stores.accounts, writes: stores.events.eventSignal, now: dependencies.configuration.clock)
    let authentication = AccessTokenMiddleware(
        tokens: dependencies.accounts.accessTokens, users: signedIn, writers: reads.writers)
    router.addRoutes(
        ServiceController(
            health: HealthAnswer(health: stores.health), faults: faults, metrics: ServiceMetrics.registry,
            photos: dependencies.media.storage, metricsClients: dependencies.configuration.metricsClients
        ).endpoints(
            servesMetrics: servesMetrics))
    router.addRoutes(
        PlacesController(
            store: stores.places, reads: reads, cursors: cursors, authentication: authentication,
            searchScans: dependencies.configuration.searchScans, expensiveReads: dependencies.expensiveReads,
            defaultTimeZone: dependencies.configuration.defaultTimeZone
        ).endpoints,
        atPath: "/v1/places")
    router.addRoutes(
        AuthController(store: stores.accounts, accounts: dependencies.accounts, authentication: authentication)
            .endpoints, atPath: "/v1/auth")
    // The objectionable-text filter, one for every route that takes text for others to read.
    let blockedWords = dependencies.accounts.blockedWords
    // Per-user write limits, counted in the database.
    let writes = WriteLimiter(store: stores.writeLimits, limits: dependencies.configuration.writeLimits)
    router.addRoutes(
        UsersController(
            accounts: stores.accounts, reads: reads, media: dependencies.media, authentication: authentication,
            blockedWords: blockedWords, writes: writes
        ).endpoints,
        atPath: "/v1/users")
    router.addRoutes(
        AccountDataController(
            accounts: stores.accounts, reviews: stores.reviews, social: stores.social, blocks: stores.blocks,
            notifications: stores.notifications, services: dependencies.accounts,
            media: dependencies.media, authentication: authentication
        ).endpoints,
        atPath: "/v1/users")
    let reviews = ReviewsController(
        reviews: stores.reviews, idempotency: stores.idempotency, places: stores.places, reads: reads,
        media: dependencies.media,
        cursors: cursors, authentication: authentication, blockedWords: blockedWords, writes: writes)
    router.addRoutes(reviews.endpoints, atPath: "/v1/reviews")
    router.addRoutes(reviews.placeEndpoints, atPath: "/v1/places")
    router.addRoutes(reviews.userEndpoints, atPath: "/v1/users")
    let reactions = ReactionsController(
        social: stores.social, cursors: cursors, authentication: authentication, writes: writes, blocks: stores.blocks)
    router.addRoutes(reactions.endpoints, atPath: "/v1/reviews")
    router.addRoutes(reactions.personalEndpoints, atPath: "/v1/me")
    let comments = CommentsController(
        social: stores.social, reviews: stores.reviews, cursors: cursors, authentication: authentication,
        blockedWords: blockedWords, writes: writes, blocks: stores.blocks)
    router.addRoutes(comments.reviewEndpoints, atPath: "/v1/reviews")
    router.addRoutes(comments.endpoints, atPath: "/v1/comments")
    router.addRoutes(
        FollowsController(
            social: stores.social, accounts: stores.accounts, cursors: cursors, authentication: authentication,
            writes: writes, blocks: stores.blocks
        ).endpoints,
        atPath: "/v1/users")
    router.addRoutes(
        FeedController(feed: stores.feed, cursors: cursors, authentication: authentication).endpoints,
        atPath: "/v1/feed")
    router.addPhotoRoutes(dependencies.media, rows: stores.photos)
    let blocks = BlocksController(blocks: stores.blocks, cursors: cursors, authentication: authentication)
    router.addRoutes(blocks.userEndpoints, atPath: "/v1/users")
    router.addRoutes(blocks.personalEndpoints, atPath: "/v1/me")
    router.addRoutes(
        ModerationController(moderation: stores.moderation, cursors: cursors, authentication: authentication).endpoints,
        atPath: "/v1/moderation")
    router.addRoutes(
        ReportModerationController(reports: stores.reports, cursors: cursors, authentication: authentication).endpoints,
        atPath: "/v1/moderation")
    let reports = ReportsController(
        reports: stores.reports, rules: dependencies.configuration.reportRules, authentication: authentication,
        writes: writes)
    router.addRoutes(reports.endpoints({ .review($0) }, missing: .reviewNotFound), atPath: "/v1/reviews")
    router.addRoutes(reports.endpoints({ .comment($0) }, missing: .commentNotFound), atPath: "/v1/comments")
    router.addRoutes(reports.endpoints({ .user($0) }, missing: .userNotFound), atPath: "/v1/users")
    router.addNotificationRoutes(dependencies, cursors: cursors, authentication: authentication)
    router.addRoutes(
        OGCController(
            places: stores.places, features: stores.features, cursors: cursors,
            trustedProxies: dependencies.configuration.trustedProxies, publicURL: dependencies.configuration.publicURL,
            expensiveReads: dependencies.expensiveReads, matchBound: dependencies.configuration.featureMatchBound
        ).endpoints,
        atPath: "/ogc")
    router.addRoutes(WebMapController(settings: dependencies.configuration.webMap, places: stores.places).endpoints)
    router.addRoutes(
        TilesController(
            store: stores.places, tiles: dependencies.tiles, trustedProxies: dependencies.configuration.trustedProxies,
            publicURL: dependencies.configuration.publicURL
        )
        .endpoints)
    if let lslp = dependencies.configuration.lslp {
        router.addLSLPRoutes(lslp, dependencies: dependencies, cursors: cursors, writes: writes, signedIn: signedIn)
    }
    router.answerOtherMethods()
    return router
}

/// Everything the routes share, from the configuration and an opened storage engine: the one
/// wiring that `buildApplication` and the tests use. `media` is the photo pipeline and folder
/// to use (by default the configured photo folder).
public func buildDependencies(
    _ configuration: ServiceConfiguration, stores: ServiceStores, media: MediaServices? = nil
) async throws -> ServiceDependencies {
    let secret = try configuration.secret ?? ServiceSecret.loadOrCreate(in: configuration.dataDirectory)
    _ = ServiceMetrics.registry
    let signingKey = try AccessTokens.signingKey(environment: ProcessInfo.processInfo.environment, secret: secret)
    var accounts = AccountServices(
        accessTokens: await AccessTokens(key: signingKey, lifetime: configuration.accessTokenLifetime),
        refreshLifetime: configuration.refreshTokenLifetime,
        throttle: LoginThrottle(
            store: stores.throttle, policy: configuration.loginThrottle, clock: configuration.clock),
        refreshGrace: configuration.refreshGrace,
        successorKey: secret.derivedKey(purpose: AccountServices.successorKeyPurpose))
    accounts.blockedWords = configuration.blockedWords
    var photos: MediaServices
    if let media { photos = media } else { photos = try await openMedia(configuration) }
    photos.links = configuration.photoStore.links
    let events = EventLog(store: stores.events, retention: configuration.eventRetention, now: configuration.clock)
    let notifications = try NotificationServices(
        configuration.notifications, stores: stores, events: events, dataDirectory: configuration.dataDirectory,
        sharedSecret: configuration.secret, now: configuration.clock)
    let tiles = await TileServices(configuration.tiles, events: events, places: stores.places)
    var dependencies = ServiceDependencies(
        configuration: configuration, stores: stores, secret: secret, accounts: accounts, media: photos,
        events: events, notifications: notifications, tiles: tiles)
    if let replicas = stores.replicas {
        dependencies.reads = ReadRouting(
            router: LagTolerantRouter(
                primary: stores.lagTolerantReads, replicas: replicas,
                writers: RecentWriters(window: configuration.readYourWrites, startingAt: configuration.clock())),
            tokens: accounts.accessTokens)
    }
    return dependencies
}
