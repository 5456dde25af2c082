import BurgerMap
import BurgerMapCore
import Foundation

/// A clock that moves only when the test moves it. Requests run under it through
/// `ServiceClock.$current`, so a test can let a token expire or order two likes without waiting.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now: Timestamp

    /// Starts at the current time, so that rows written outside the clock stay in order with it.
    init(startingAt start: Timestamp = .now()) {
        now = start
    }

    /// The clock's time, for `ServiceClock.$current`.
    var read: @Sendable () -> Timestamp { { [self] in lock.withLock { now } } }

    /// Moves the clock forward.
    func advance(milliseconds: Int64) {
        lock.withLock { now = Timestamp(milliseconds: now.milliseconds + milliseconds) }
    }

    /// Runs `body` with the service reading this clock.
    func run<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        try await ServiceClock.$current.withValue(read) { try await body() }
    }
}
