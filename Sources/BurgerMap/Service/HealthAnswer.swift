import BurgerMapCore
import Synchronization

/// What `GET /health` answers: the engine's background check when it has one (PostgreSQL's
/// monitor, every second, which also turns the routes away while the server is gone, so that
/// `/health` says 503 exactly when they do), else a reachability check at most `maximumAge` old. A load balancer polls
/// `/health` a few times a second and a benchmark thousands of times; a database read for each
/// made `/health` cost what a small query does, so one check now serves every request of the
/// next second (`scripts/bench-ceiling`).
final class HealthAnswer: Sendable {
    let health: any StoreHealth
    let maximumAge: Duration
    /// The clock (tests give their own).
    let now: @Sendable () -> ContinuousClock.Instant
    /// When the last check finished, and what it answered.
    private let last = Mutex<(time: ContinuousClock.Instant, reachable: Bool)?>(nil)

    init(
        health: any StoreHealth, maximumAge: Duration = .seconds(1),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.health = health
        self.maximumAge = maximumAge
        self.now = now
    }

    /// Whether the database serves requests: the background check's answer when there is one;
    /// else the last check's answer while it is fresh, or a new check. Requests that find the
    /// answer stale together may each check; the next second's are answered from memory.
    func isHealthy() async -> Bool {
        guard health.isAvailable else { return false }
        if health.checksInBackground { return true }
        let time = now()
        if let last = last.withLock({ $0 }), time - last.time < maximumAge { return last.reachable }
        let reachable = await health.isReachable()
        let finished = now()
        last.withLock { $0 = (finished, reachable) }
        return reachable
    }
}
