import BurgerMapCore
import Hummingbird

/// Admits or refuses a user's write by its kind's limit, in fixed windows (a burst at a
/// window's end and the next one's start may reach twice the limit, never more).
public struct WriteLimiter: Sendable {
    let store: any WriteLimitStore
    let limits: WriteLimits

    public init(store: any WriteLimitStore, limits: WriteLimits = WriteLimits()) {
        self.store = store
        self.limits = limits
    }

    /// Counts the write, or throws `429 rate_limited` with `Retry-After` (the seconds until the
    /// window ends) when the user has made the limit's number of them in this window.
    func admit(_ action: WriteAction, user: Int64, at time: Timestamp = .now()) async throws {
        let limit = limits[action]
        let window = Int64(limit.seconds) * 1000
        let start = time.milliseconds.floorDivided(by: window) * window
        let counted = try await store.countWrite(
            user: user, action: action, windowStart: Timestamp(milliseconds: start), limit: limit.count,
            forgetBefore: Timestamp(milliseconds: time.milliseconds - 86_400_000))
        guard !counted else { return }
        let wait = max(1, (start + window - time.milliseconds + 999) / 1000)
        throw Problem(
            .rateLimited, .writeLimitReached, ["seconds": "\(wait)", "count": "\(limit.count)"],
            headers: [.retryAfter: "\(wait)"])
    }
}
