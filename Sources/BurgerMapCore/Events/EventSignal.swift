import Foundation
import Synchronization

/// A doorbell for event readers: `ring()` wakes every waiting reader. It carries no events (the
/// table does), so a reader that was busy when it rang loses nothing: its next read finds
/// whatever was written. Each waiter holds one pending ring at most, so a burst of writes costs
/// a slow reader nothing.
///
/// It also counts its rings (`writeRings`), which only writes make (a poll `wake()`s without
/// counting): what was read before the count moved may have changed since (`SignedInUsers`).
public final class EventSignal: Sendable {
    private let waiters = Mutex<[UInt64: AsyncStream<Void>.Continuation]>([:])
    private let nextWaiter = Atomic<UInt64>(0)
    private let ringCount = Atomic<UInt64>(0)

    public init() {}

    /// Says that a write may have committed: counts it, then wakes every reader that waits.
    public func ring() {
        ringCount.add(1, ordering: .sequentiallyConsistent)
        wake()
    }

    /// Wakes every reader that waits without counting a write (a poll).
    public func wake() {
        let continuations = waiters.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield() }
    }

    /// How many times writes rang so far.
    public var writeRings: UInt64 { ringCount.load(ordering: .sequentiallyConsistent) }

    /// A stream of rings for one reader, ended when the reader stops iterating it.
    public func rings() -> AsyncStream<Void> {
        let id = nextWaiter.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.onTermination = { [weak self] _ in
            _ = self?.waiters.withLock { $0.removeValue(forKey: id) }
        }
        waiters.withLock { $0[id] = continuation }
        return stream
    }

    /// How many readers wait (for tests and metrics).
    public var waiting: Int { waiters.withLock { $0.count } }
}
