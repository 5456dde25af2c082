import Crypto
import Foundation
import Synchronization

/// Counts failed logins per client and per (account, client) and says when to refuse more.
///
/// Failures never lock an account as such: a stranger who fails for someone's email blocks only
/// the stranger's own (account, client) pair and, past the per-client limit, the stranger's
/// address, never the owner logging in from elsewhere. Both keys are counted alike whether or
/// not an account exists, so a `429` reveals nothing about which emails are registered.
///
/// A key is blocked when it reaches its limit of failures within the window; the block lasts
/// `firstBlock` and doubles each time it engages again (up to `longestBlock`), so a client that
/// keeps failing waits longer each round. Kept in memory (a restart forgets) and bounded in
/// size: no package here offers a rate limiter for Hummingbird.
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
        /// The most keys kept; beyond it, keys that are not blocked are forgotten first.
        public var maximumKeys: Int

        public init(
            perAccountClient: Int = 5, perClient: Int = 20, window: Duration = .seconds(15 * 60),
            firstBlock: Duration = .seconds(15 * 60), longestBlock: Duration = .seconds(24 * 3600),
            maximumKeys: Int = 100_000
        ) {
            self.perAccountClient = perAccountClient
            self.perClient = perClient
            self.window = window
            self.firstBlock = firstBlock
            self.longestBlock = longestBlock
            self.maximumKeys = maximumKeys
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

    private struct KeyState {
        var failures: [Int64] = []
        var blockedUntil: Int64 = 0
        var rounds = 0
        var lastSeen: Int64 = 0
    }

    private let policy: Policy
    private let clock: @Sendable () -> Timestamp
    private let states = Mutex<[String: KeyState]>([:])

    public init(policy: Policy = Policy(), clock: @escaping @Sendable () -> Timestamp = Timestamp.now) {
        self.policy = policy
        self.clock = clock
    }

    private func keys(email: String, client: String) -> [(key: String, kind: Kind, limit: Int)] {
        [
            ("client:" + client, .client, policy.perClient),
            ("account:" + AccountRules.key(email) + "|client:" + client, .accountClient, policy.perAccountClient),
        ]
    }

    /// Seconds until a login for this email from this client may be tried again, or `nil` when
    /// it may be tried now.
    func retryAfter(email: String, client: String) -> Int? {
        let now = clock().milliseconds
        let wait: Int64 = states.withLock { states in
            var wait: Int64 = 0
            for key in keys(email: email, client: client) {
                if let state = states[key.key] { wait = max(wait, state.blockedUntil - now) }
            }
            return wait
        }
        return wait > 0 ? Int((wait + 999) / 1000) : nil
    }

    /// Records a failed login; returns the blocks it engaged.
    func recordFailure(email: String, client: String) -> [Engaged] {
        let now = clock().milliseconds
        let window = policy.window.milliseconds
        return states.withLock { states in
            if states.count >= policy.maximumKeys { sweep(&states, now: now) }
            var engaged: [Engaged] = []
            for (key, kind, limit) in keys(email: email, client: client) {
                var state = states[key] ?? KeyState()
                state.lastSeen = now
                state.failures = state.failures.filter { now - $0 < window } + [now]
                if state.failures.count >= limit, state.blockedUntil <= now {
                    let block = min(
                        policy.firstBlock.milliseconds << min(state.rounds, 40), policy.longestBlock.milliseconds)
                    state.blockedUntil = now + block
                    state.rounds += 1
                    state.failures = []
                    engaged.append(
                        Engaged(
                            kind: kind, accountHash: kind == .accountClient ? Self.shortHash(email) : nil,
                            retryAfter: Int((block + 999) / 1000), round: state.rounds))
                }
                states[key] = state
            }
            return engaged
        }
    }

    /// Forgets this client's failures for this account after a successful login (the client's
    /// own count stays).
    func recordSuccess(email: String, client: String) {
        _ = states.withLock { $0.removeValue(forKey: keys(email: email, client: client)[1].key) }
    }

    /// Drops keys that are neither blocked nor have failures in the window, and keys quiet for
    /// longer than the longest block (their doubling starts over); if that is not enough, the
    /// keys not blocked, then the oldest half.
    private func sweep(_ states: inout [String: KeyState], now: Int64) {
        let window = policy.window.milliseconds
        let forgetAfter = max(window, policy.longestBlock.milliseconds)
        states = states.filter { _, state in
            state.blockedUntil > now
                || (now - state.lastSeen < forgetAfter && (state.rounds > 0 || !state.failures.isEmpty))
        }
        if states.count >= policy.maximumKeys { states = states.filter { $0.value.blockedUntil > now } }
        if states.count >= policy.maximumKeys {
            let cut = states.values.map(\.lastSeen).sorted()[states.count / 2]
            states = states.filter { $0.value.lastSeen > cut }
        }
    }

    /// A short, stable name for an account key in logs: never the email itself.
    static func shortHash(_ email: String) -> String {
        SHA256.hash(data: Data(AccountRules.key(email).utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}

extension Duration {
    /// The whole duration in milliseconds.
    var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
