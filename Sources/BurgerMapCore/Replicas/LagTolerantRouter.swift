/// Where each read that tolerates a little lag goes: to a replica, spread across those in use,
/// unless its reader must see their own writes; to the primary otherwise.
///
/// The rule, the same on every instance:
/// - anonymous: a replica;
/// - signed in by a user who wrote within `--read-your-writes` (`RecentWriters`), or with an
///   access token issued within it: the primary. The token's age covers the one write no event
///   records, a new account (its first token is issued with it), and costs nothing to know;
///   a token refreshed every 5 minutes sends its user's reads to the primary for 5 s of them;
/// - no replica in use (all down or lagging beyond `--max-replica-lag`): the primary;
/// - a replica that fails the read: the primary, for that read.
public struct LagTolerantRouter: Sendable {
    /// The primary's stores.
    public let primary: LagTolerantReads
    /// The replicas; `nil` sends everything to the primary at no cost.
    public let replicas: (any ReplicaSet)?
    /// The recent writers; `nil` without replicas.
    public let writers: RecentWriters?

    /// Everything on the primary (the SQLite engine, PostgreSQL without `--read-database`).
    public init(primary: LagTolerantReads) {
        self.primary = primary
        replicas = nil
        writers = nil
    }

    /// Reads spread over `replicas` under the read-your-writes rule of `writers`.
    public init(primary: LagTolerantReads, replicas: any ReplicaSet, writers: RecentWriters) {
        self.primary = primary
        self.replicas = replicas
        self.writers = writers
    }

    /// Who reads: a signed-in user, with when their access token was issued.
    public struct Reader: Sendable, Equatable {
        public var userID: Int64
        public var signedInAt: Timestamp?

        public init(userID: Int64, signedInAt: Timestamp?) {
            self.userID = userID
            self.signedInAt = signedInAt
        }
    }

    /// Whether `reader` must read the primary at `time` (their own write may not be on a
    /// replica yet).
    public func mustReadPrimary(_ reader: Reader, at time: Timestamp = .now()) -> Bool {
        guard let writers else { return true }
        if writers.wroteRecently(reader.userID, at: time) { return true }
        guard let signedInAt = reader.signedInAt else { return false }
        return time.milliseconds - signedInAt.milliseconds < writers.window.milliseconds
    }

    /// Runs `read` where the rule sends it; answers its value and where it ran.
    public func run<Value: Sendable>(
        for reader: Reader?, at time: Timestamp = .now(),
        _ read: @escaping @Sendable (LagTolerantReads) async throws -> Value
    ) async throws -> (value: Value, route: ReadRoute) {
        guard let replicas else { return (try await read(primary), .primary(.noReplicas)) }
        if let reader, mustReadPrimary(reader, at: time) {
            return (try await read(primary), .primary(.readYourWrites))
        }
        guard let replica = replicas.nextReplica() else {
            return (try await read(primary), .primary(.noReplicaInUse))
        }
        do {
            return (try await replica.run(read), .replica(replica.index))
        } catch is ReplicaReadFailed {
            return (try await read(primary), .primary(.replicaFailed))
        }
    }
}

/// Where a lag-tolerant read ran (the `/metrics` counter's labels).
public enum ReadRoute: Sendable, Equatable {
    case replica(Int)
    case primary(PrimaryReason)

    /// Why a read went to the primary.
    public enum PrimaryReason: String, Sendable, CaseIterable {
        /// No replicas configured.
        case noReplicas = "no_replicas"
        /// The reader wrote (or signed in) within `--read-your-writes`.
        case readYourWrites = "read_your_writes"
        /// Every replica is down or lags beyond `--max-replica-lag`.
        case noReplicaInUse = "no_replica_in_use"
        /// The replica chosen failed the read.
        case replicaFailed = "replica_failed"
    }
}

extension ServiceStores {
    /// The primary's lag-tolerant reads.
    public var lagTolerantReads: LagTolerantReads {
        LagTolerantReads(places: places, reviews: reviews, accounts: accounts)
    }
}
