import Foundation
import Synchronization

/// The storage fault this instance last met, until a write succeeds again: `/health` answers
/// `503` with it meanwhile (a local fault: a load balancer should send writes elsewhere), and
/// `200` once a probe write, tried at most once every `recheckInterval` while a fault is
/// recorded, goes through. Nothing is probed while all is well, so a healthy `/health` costs
/// what it did.
package final class StorageFaults: Sendable {
    /// Milliseconds between probes while a fault stands.
    package static let recheckInterval: Int64 = 1000

    /// Tries one small write of each kind of storage; answers the first fault met, or `nil`.
    package let probe: @Sendable () async -> StorageFault?
    /// The service's clock (tests move it by hand, so that no test waits on the wall clock).
    package let now: @Sendable () -> Timestamp
    private let state = Mutex<(fault: StorageFault, checkedAt: Timestamp)?>(nil)

    package init(
        probe: @escaping @Sendable () async -> StorageFault?,
        now: @escaping @Sendable () -> Timestamp = { Timestamp.now() }
    ) {
        self.probe = probe
        self.now = now
    }

    /// A write failed with `fault`.
    package func record(_ fault: StorageFault) {
        let time = now()
        state.withLock { $0 = (fault, time) }
    }

    /// The fault that still stands, probing again when the last check is older than
    /// `recheckInterval`; `nil` when writes work.
    package func current() async -> StorageFault? {
        guard let last = state.withLock({ $0 }) else { return nil }
        guard now().milliseconds - last.checkedAt.milliseconds >= Self.recheckInterval else { return last.fault }
        let fault = await probe()
        let time = now()
        state.withLock { $0 = fault.map { ($0, time) } }
        return fault
    }
}
