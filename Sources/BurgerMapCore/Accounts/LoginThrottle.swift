import Crypto
import Foundation

/// Counts failed logins per client and per (account, client) and says when to refuse more.
///
/// Failures never lock an account as such: a stranger who fails for someone's email blocks only
/// the stranger's own (account, client) pair and, past the per-client limit, the stranger's
/// address, never the owner logging in from elsewhere. Both keys are counted alike whether or
/// not an account exists, so a `429` reveals nothing about which emails are registered.
///
/// A key is blocked when it reaches its limit of failures within the window; the block lasts
/// `firstBlock` and doubles each time it engages again (up to `longestBlock`), so a client that
/// keeps failing waits longer each round. The records live in a `LoginThrottleStore` (the
/// database), so that several instances of the service count together and a restart forgets
/// nothing; a record is forgotten once it is not blocked, has no failure in the window and has
/// been quiet for the longest block (its doubling then starts over). No package here offers a
/// rate limiter for Hummingbird.
public final class LoginThrottle: Sendable {
    /// Failures allowed per key within the window, and how long blocks last.
    public struct Policy: Sendable {
        /// Failures for one account from one client.
        public var perAccountClient: Int
        /// Failures from one client, whatever the accounts.
        public var perClient: Int
        public var window: Duration
        /// The first block of a key; each later one doubles.
        public var firstBlock: Duration
        public var longestBlock: Duration

        public init(
            perAccountClient: Int = 5, perClient: Int = 20, window: Duration = .seconds(15 * 60),
            firstBlock: Duration = .seconds(15 * 60), longestBlock: Duration = .seconds(24 * 3600)
        ) {
            self.perAccountClient = perAccountClient
            self.perClient = perClient
            self.window = window
            self.firstBlock = firstBlock
            self.longestBlock = longestBlock
        }
    }

    /// Which limit a block belongs to.
    public enum Kind: String, Sendable {
        case client
        case accountClient = "account_client"
    }

    /// A block that has just engaged (to be logged by the caller).
    public struct Engaged: Sendable, Equatable {
        public var kind: Kind
        /// The first 12 hex digits of the SHA-256 of the normalised email, for `accountClient`.
        public var accountHash: String?
        public var retryAfter: Int
        /// How many times this key's block has engaged (1 the first time).
        public var round: Int
    }

    private let store: any LoginThrottleStore
    private let policy: Policy
    private let clock: @Sendable () -> Timestamp

    /// - Parameter store: where the records live; every instance on one database shares them.
    public init(
        store: any LoginThrottleStore, policy: Policy = Policy(),
        clock: @escaping @Sendable () -> Timestamp = Timestamp.now
    ) {
        self.store = store
        self.policy = policy
        self.clock = clock
    }

    /// The two keys of a login attempt. The account is named by a hash of its normalised email,
    /// so that the database never keeps what someone typed into the email field.
    private func keys(email: String, client: String) -> [(key: String, kind: Kind, limit: Int)] {
        [
            ("client:" + client, .client, policy.perClient),
            ("account:" + Self.hash(email) + "|client:" + client, .accountClient, policy.perAccountClient),
        ]
    }

    /// Seconds until a login for this email from this client may be tried again, or `nil` when
    /// it may be tried now.
    package func retryAfter(email: String, client: String) async throws -> Int? {
        let now = clock().milliseconds
        let keys = keys(email: email, client: client)
        let states = try await store.throttleStates(keys.map(\.key))
        var wait: Int64 = 0
        for key in keys {
            if let state = states[key.key] { wait = max(wait, state.blockedUntil.milliseconds - now) }
        }
        return wait > 0 ? Int((wait + 999) / 1000) : nil
    }

    /// Records a failed login; returns the blocks it engaged.
    package func recordFailure(email: String, client: String) async throws -> [Engaged] {
        let now = clock()
        var engaged: [Engaged] = []
        for (key, kind, limit) in keys(email: email, client: client) {
            let policy = policy
            let block = try await store.updateThrottleKey(key, at: now) { state in
                Self.fail(&state, at: now.milliseconds, limit: limit, policy: policy)
            }
            if let block {
                engaged.append(
                    Engaged(
                        kind: kind, accountHash: kind == .accountClient ? Self.shortHash(email) : nil,
                        retryAfter: block.retryAfter, round: block.round))
            }
        }
        return engaged
    }

    /// One failure on one key's record: the block it engages, if it does.
    private static func fail(_ state: inout ThrottleKeyState, at now: Int64, limit: Int, policy: Policy)
        -> (retryAfter: Int, round: Int)?
    {
        let window = policy.window.milliseconds
        state.lastSeen = Timestamp(milliseconds: now)
        // Only the newest `limit` failures can matter: the count is compared with the limit, and
        // older failures leave the window first. Keeping no more bounds the record.
        state.failures = Array(
            (state.failures.filter { now - $0.milliseconds < window } + [Timestamp(milliseconds: now)]).suffix(
                max(limit, 1)))
        var engaged: (retryAfter: Int, round: Int)?
        if state.failures.count >= limit, state.blockedUntil.milliseconds <= now {
            let block = min(policy.firstBlock.milliseconds << min(state.rounds, 40), policy.longestBlock.milliseconds)
            state.blockedUntil = Timestamp(milliseconds: now + block)
            state.rounds += 1
            state.failures = []
            engaged = (Int((block + 999) / 1000), state.rounds)
        }
        // Worth keeping while blocked, while a failure is in the window, and while its rounds
        // are remembered (quiet for less than the longest block).
        let remembered = state.rounds > 0 ? now + max(window, policy.longestBlock.milliseconds) : 0
        let counted = state.failures.last.map { $0.milliseconds + window } ?? 0
        state.forgetAt = Timestamp(milliseconds: max(state.blockedUntil.milliseconds, counted, remembered))
        return engaged
    }

    /// Forgets this client's failures for this account after a successful login (the client's
    /// own count stays).
    package func recordSuccess(email: String, client: String) async throws {
        try await store.removeThrottleKey(keys(email: email, client: client)[1].key)
    }

    /// The SHA-256 of the normalised email in hex: an account's name in throttle keys.
    package static func hash(_ email: String) -> String {
        SHA256.hash(data: Data(AccountRules.key(email).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A short, stable name for an account key in logs: never the email itself.
    package static func shortHash(_ email: String) -> String {
        SHA256.hash(data: Data(AccountRules.key(email).utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}

extension Duration {
    /// The whole duration in milliseconds.
    package var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
