/// The reads that tolerate a little lag, and only those: what a streaming replica may answer,
/// a moment behind the primary (a new place or review shows a moment later). Nearby, viewport,
/// clusters and place search, the public review lists (all reviews, a place's, a user's) and
/// public profiles.
///
/// A value exposes these reads and nothing else, so a controller that holds one cannot write
/// through a replica or read it for anything that must be exact (sign-in, moderation, feeds,
/// notifications, tiles). It is either the primary's stores or one replica's.
public struct LagTolerantReads: Sendable {
    private let places: any PlaceStore
    private let reviewStore: any ReviewStore
    private let accounts: any AccountStore

    public init(places: any PlaceStore, reviews: any ReviewStore, accounts: any AccountStore) {
        self.places = places
        reviewStore = reviews
        self.accounts = accounts
    }

    /// `PlaceStore.nearbyPlaces`.
    public func nearbyPlaces(_ query: NearbyQuery) async throws -> NearbyPage {
        try await places.nearbyPlaces(query)
    }

    /// `PlaceStore.placesInViewport`.
    public func placesInViewport(_ query: ViewportQuery) async throws -> ViewportResult {
        try await places.placesInViewport(query)
    }

    /// `PlaceStore.clusters`.
    public func clusters(_ query: ClusterQuery) async throws -> ClusterResult {
        try await places.clusters(query)
    }

    /// `PlaceStore.searchPlaces`.
    public func searchPlaces(_ query: SearchQuery) async throws -> SearchPage {
        try await places.searchPlaces(query)
    }

    /// Whether a place exists (a missing place's review list is `404`, not empty).
    public func placeExists(id: Int64) async throws -> Bool {
        try await places.place(id: id) != nil
    }

    /// `ReviewStore.reviews`: a page of a public review list.
    public func reviews(_ scope: ReviewListScope, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Review>
    {
        try await reviewStore.reviews(scope, after: after, limit: limit, viewer: viewer)
    }

    /// `AccountStore.user`: a public profile's account.
    public func user(id: Int64) async throws -> User? {
        try await accounts.user(id: id)
    }

    /// `AccountStore.userExists`.
    public func userExists(id: Int64) async throws -> Bool {
        try await accounts.userExists(id: id)
    }

    /// `AccountStore.profileStats`.
    public func profileStats(of userID: Int64, viewer: Int64?) async throws -> ProfileStats {
        try await accounts.profileStats(of: userID, viewer: viewer)
    }
}

/// The streaming replicas of the primary that an engine may read from (PostgreSQL's
/// `--read-database`), each checked in the background.
public protocol ReplicaSet: Sendable {
    /// The next replica to read from, in turn among those that answer and lag no more than
    /// allowed; `nil` when none does.
    func nextReplica() -> (any ReadReplica)?
    /// Each replica's last check, in the order the replicas were given.
    var statuses: [ReplicaStatus] { get }
}

/// One replica that reads can be sent to.
public protocol ReadReplica: Sendable {
    /// Its position among the replicas given (0, 1, …): the `replica` label of its metrics.
    var index: Int { get }
    /// Runs `read` on the replica. Throws `ReplicaReadFailed` when the replica failed it (a
    /// connection lost or refused: the replica is then marked down; or an error of the replica
    /// itself, such as a query cancelled by a conflict with its replay), or when it was found
    /// down while the read waited for it; any other error is the read's own and is rethrown.
    func run<Value: Sendable>(_ read: @escaping @Sendable (LagTolerantReads) async throws -> Value) async throws
        -> Value
}

/// A replica's last check.
public struct ReplicaStatus: Sendable, Equatable {
    /// Whether it answered.
    public var isReachable: Bool
    /// How far its replay is behind the primary, in seconds (0 when it has replayed everything
    /// it received); `nil` when it did not answer, or cannot tell (it replays no stream).
    public var lagSeconds: Double?
    /// Whether reads are sent to it: it answers, is a standby, and lags no more than allowed.
    public var isInUse: Bool

    public init(isReachable: Bool, lagSeconds: Double?, isInUse: Bool) {
        self.isReachable = isReachable
        self.lagSeconds = lagSeconds
        self.isInUse = isInUse
    }
}

/// A replica failed a read (see `ReadReplica.run`): the read goes to the primary instead.
public struct ReplicaReadFailed: Error, CustomStringConvertible {
    public var replica: Int
    public var underlying: any Error

    public init(replica: Int, underlying: any Error) {
        self.replica = replica
        self.underlying = underlying
    }

    public var description: String { "replica \(replica) failed a read: \(underlying)" }
}
