import BurgerMapCore
import Metrics
import NIOCore
import Synchronization

/// Why the service closed a connection, as counted in `/metrics`.
enum ConnectionCloseReason: String, Sendable, CaseIterable {
    /// No request for `idleTimeout`.
    case idle
    /// A request head took longer than `headerTimeout` to arrive.
    case headerTimeout = "header_timeout"
    /// A body arrived slower than `minimumBodyRate`.
    case bodyTooSlow = "body_too_slow"
    /// An early answer was sent; the rest of the body was dropped (or its bound reached).
    case earlyAnswer = "early_answer"
    /// The cap was reached and this connection had been idle longest.
    case evictedIdle = "evicted_idle"
    /// The cap was reached and no connection was idle.
    case overCapacity = "over_capacity"
}

/// The connection metrics, made after the metrics system is bootstrapped (a metric made before it
/// would report to nowhere).
struct ConnectionMetrics: Sendable {
    private let closed: [ConnectionCloseReason: Counter]
    private let open = Gauge(label: "burgermap_connections_open")

    init() {
        var closed: [ConnectionCloseReason: Counter] = [:]
        for reason in ConnectionCloseReason.allCases {
            closed[reason] = Counter(
                label: "burgermap_connections_closed_total", dimensions: [("reason", reason.rawValue)])
        }
        self.closed = closed
    }

    func closed(_ reason: ConnectionCloseReason) { closed[reason]?.increment() }
    func open(_ count: Int) { open.record(count) }
}

/// Every open connection of the server, across event loops, with the moment each became idle, so
/// that at the cap a new connection can take the place of the one idle longest: an attacker who
/// fills the cap with idle connections then costs the others nothing.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        let idle: IdleMark
    }

    /// When one connection became idle, `nil` while a request is in progress. Its own atomic, so
    /// that marking it (twice per request) takes no lock that every event loop shares.
    final class IdleMark: Sendable {
        private let nanoseconds: Atomic<Int64>
        private static let busy = Int64.min

        init(since: NIODeadline?) {
            nanoseconds = Atomic(since.map { Int64($0.uptimeNanoseconds) } ?? Self.busy)
        }

        var since: NIODeadline? {
            let value = nanoseconds.load(ordering: .relaxed)
            return value == Self.busy ? nil : .uptimeNanoseconds(UInt64(value))
        }

        func set(_ since: NIODeadline?) {
            nanoseconds.store(since.map { Int64($0.uptimeNanoseconds) } ?? Self.busy, ordering: .relaxed)
        }
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
    let maximum: Int
    let metrics: ConnectionMetrics

    init(maximum: Int, metrics: ConnectionMetrics) {
        self.maximum = maximum
        self.metrics = metrics
    }

    /// Registers a new connection; `false` when it has to be closed because the cap is reached
    /// and no connection is idle.
    func admit(_ channel: any Channel) -> Bool {
        let now = channel.eventLoop.now
        let (admitted, evicted, count) = entries.withLock { entries -> (Bool, (any Channel)?, Int) in
            var evicted: (any Channel)?
            if entries.count >= maximum {
                // A linear scan, only while at the cap (20,000 entries: tens of microseconds).
                let oldest = entries.lazy.compactMap { entry in entry.value.idle.since.map { (entry, $0) } }
                    .min { $0.1 < $1.1 }?.0
                guard let oldest else { return (false, nil, entries.count) }
                entries[oldest.key] = nil
                evicted = oldest.value.channel
            }
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, idle: IdleMark(since: now))
            return (true, evicted, entries.count)
        }
        if let evicted {
            metrics.closed(.evictedIdle)
            evicted.close(promise: nil)
        }
        guard admitted else {
            metrics.closed(.overCapacity)
            return false
        }
        metrics.open(count)
        channel.closeFuture.whenComplete { _ in self.remove(channel) }
        return true
    }

    /// The mark a connection's guard sets idle (`since` a moment) or busy (`nil`); `nil` for a
    /// connection not admitted.
    func idleMark(_ channel: any Channel) -> IdleMark? {
        entries.withLock { $0[ObjectIdentifier(channel)]?.idle }
    }

    private func remove(_ channel: any Channel) {
        let count = entries.withLock { entries in
            entries[ObjectIdentifier(channel)] = nil
            return entries.count
        }
        metrics.open(count)
    }
}
