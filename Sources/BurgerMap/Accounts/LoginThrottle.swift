import Foundation
import Synchronization

/// Counts failed logins per email and per client address and says when to refuse more.
///
/// Both keys are throttled alike whether or not an account exists, so a `429` reveals nothing
/// about which emails are registered. A sliding window: a key is blocked while it has `limit`
/// failures younger than `window`, until the oldest of them ages out. Kept in memory (a restart
/// forgets), bounded in size: no package here offers a rate limiter for Hummingbird.
public final class LoginThrottle: Sendable {
    /// Failures allowed per key within the window.
    public struct Policy: Sendable {
        public var perEmail: Int
        public var perClient: Int
        public var window: Duration

        public init(perEmail: Int = 5, perClient: Int = 20, window: Duration = .seconds(15 * 60)) {
            self.perEmail = perEmail
            self.perClient = perClient
            self.window = window
        }
    }

    private let policy: Policy
    private let failures = Mutex<[String: [Date]]>([:])
    /// Beyond this many keys, expired ones are swept out.
    private let sweepThreshold = 10_000

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    private func keys(email: String, client: String) -> [(key: String, limit: Int)] {
        [("email:" + AccountRules.key(email), policy.perEmail), ("client:" + client, policy.perClient)]
    }

    /// Seconds until a login for this email from this client may be tried again, or `nil` when
    /// it may be tried now.
    func retryAfter(email: String, client: String, now: Date = Timestamp.now().date) -> Int? {
        let window = policy.window.seconds
        return failures.withLock { failures in
            var wait: Double?
            for (key, limit) in keys(email: email, client: client) {
                let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
                if recent.count >= limit, let oldest = recent.first {
                    wait = max(wait ?? 0, window - now.timeIntervalSince(oldest))
                }
            }
            return wait.map { max(1, Int($0.rounded(.up))) }
        }
    }

    /// Records a failed login.
    func recordFailure(email: String, client: String, now: Date = Timestamp.now().date) {
        let window = policy.window.seconds
        failures.withLock { failures in
            if failures.count > sweepThreshold {
                failures = failures.filter { _, times in times.last.map { now.timeIntervalSince($0) < window } ?? false
                }
            }
            for (key, limit) in keys(email: email, client: client) {
                var times = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
                times.append(now)
                failures[key] = Array(times.suffix(limit))
            }
        }
    }

    /// Forgets an email's failures after a successful login (the client's stay counted).
    func recordSuccess(email: String) {
        _ = failures.withLock { $0.removeValue(forKey: "email:" + AccountRules.key(email)) }
    }
}
