/// Whether the database answers at all (`GET /health`, and the `503` of requests while it is away).
public protocol StoreHealth: Sendable {
    /// Answers whether the database answers a trivial query, within a short time.
    func isReachable() async -> Bool
    /// Whether an error a store threw means that the database cannot be reached (the request
    /// is answered `503 service_unavailable`, not `500`).
    func isOutage(_ error: any Error) -> Bool
    /// Whether the database answered its last check: while it does not, requests that need it
    /// are answered `503` at once instead of waiting for it (a cached value, read per request).
    var isAvailable: Bool { get }
    /// Whether `isAvailable` comes from a check that runs in the background (PostgreSQL's
    /// monitor): `/health` then answers from it alone, so that it says 503 exactly when the
    /// routes do.
    var checksInBackground: Bool { get }
    /// The storage fault an error a store threw means (a full disk, a read-only database), if
    /// it is one.
    func storageFault(_ error: any Error) -> StorageFault?
    /// Tries one small write; answers the fault that stops it, or `nil` when writes work.
    func probeWrite() async -> StorageFault?
}

extension StoreHealth {
    /// An embedded database is never away: its errors are the service's own (`500`).
    public func isOutage(_ error: any Error) -> Bool { false }
    /// An embedded database is always there.
    public var isAvailable: Bool { true }
    /// An embedded database has no monitor.
    public var checksInBackground: Bool { false }
}

/// Everything one storage engine provides: the SQLite engine (`BurgerMapSQLite`) and the
/// PostgreSQL engine (`BurgerMapPostgres`) each implement all of it.
public typealias StorageEngine = PlaceStore & AccountStore & ReviewStore & PhotoStore & SocialStore & FeedStore
    & StoreHealth & LoginThrottleStore & PostStore & WriteLimitStore & ModerationStore
    & BlockStore & ReportStore & EventStore & IdempotencyStore & NotificationStore & PushStore & FeatureStore

/// The stores the HTTP layer works with, one per feature. Controllers and middleware hold
/// these protocols, never an engine, so that both engines serve the same routes.
public struct ServiceStores: Sendable {
    public var places: any PlaceStore
    public var accounts: any AccountStore
    public var reviews: any ReviewStore
    public var photos: any PhotoStore
    public var social: any SocialStore
    public var feed: any FeedStore
    public var health: any StoreHealth
    /// Login throttling's records. A store of its own rather than part of `AccountStore`: it
    /// holds no account data (keys are clients and email hashes, whether or not an account
    /// exists), and `LoginThrottle` is built on it alone.
    public var throttle: any LoginThrottleStore
    /// The batched reads of the LookForRealBurger routes.
    public var posts: any PostStore
    /// The per-user write counts (`WriteLimiter`).
    public var writeLimits: any WriteLimitStore
    /// Moderator roles, suspensions and the audit log.
    public var moderation: any ModerationStore
    /// Blocks between users.
    public var blocks: any BlockStore
    /// Reports, hidden content and moderators' decisions on them.
    public var reports: any ReportStore
    /// The events every write records (`EventLog` reads them).
    public var events: any EventStore
    /// The answers kept for `Idempotency-Key` replays.
    public var idempotency: any IdempotencyStore
    /// Notification groups, settings and stream tickets.
    public var notifications: any NotificationStore
    /// Push subscriptions and deliveries.
    public var push: any PushStore
    /// The OGC API – Features collections (`/ogc`).
    public var features: any FeatureStore
    /// Streaming replicas for the reads that tolerate a little lag (`LagTolerantReads`);
    /// `nil` (SQLite, PostgreSQL without `--read-database`) reads everything from the stores above.
    public var replicas: (any ReplicaSet)?

    /// Every store from one engine.
    public init(_ engine: some StorageEngine) {
        replicas = nil
        places = engine
        accounts = engine
        reviews = engine
        photos = engine
        social = engine
        feed = engine
        health = engine
        throttle = engine
        posts = engine
        writeLimits = engine
        moderation = engine
        blocks = engine
        reports = engine
        events = engine
        idempotency = engine
        notifications = engine
        push = engine
        features = engine
    }

    /// The stores of an engine that implements each feature in a type of its own (PostgreSQL),
    /// and its replicas, if any.
    public init(
        places: any PlaceStore, accounts: any AccountStore, reviews: any ReviewStore, photos: any PhotoStore,
        social: any SocialStore, feed: any FeedStore, health: any StoreHealth, throttle: any LoginThrottleStore,
        posts: any PostStore, writeLimits: any WriteLimitStore, moderation: any ModerationStore,
        blocks: any BlockStore, reports: any ReportStore, events: any EventStore, idempotency: any IdempotencyStore,
        notifications: any NotificationStore, push: any PushStore, features: any FeatureStore,
        replicas: (any ReplicaSet)? = nil
    ) {
        self.replicas = replicas
        self.places = places
        self.accounts = accounts
        self.reviews = reviews
        self.photos = photos
        self.social = social
        self.feed = feed
        self.health = health
        self.throttle = throttle
        self.posts = posts
        self.writeLimits = writeLimits
        self.moderation = moderation
        self.blocks = blocks
        self.reports = reports
        self.events = events
        self.idempotency = idempotency
        self.notifications = notifications
        self.push = push
        self.features = features
    }
}
