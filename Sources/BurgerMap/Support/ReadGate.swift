import BurgerMapCore
import Foundation

/// A bound on the reads that may cost more than most (a viewport, a filtered nearby search):
/// at most `slots` run at once (half the cores), the next `maxWaiting` wait their turn without
/// holding a thread, and one more is turned away (`503` with `Retry-After`). Each such read is
/// itself bounded (`ReadBounds`), so a wait lasts a few of them; a flood of them then takes at
/// most half the machine, and `/health`, nearby searches and everything else keep the rest.
public final class ReadGate: Sendable {
    public let slots: Int
    public let maxWaiting: Int
    private let queue: AdmissionQueue

    public init(slots: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), maxWaiting: Int = 32) {
        self.slots = max(1, slots)
        self.maxWaiting = max(0, maxWaiting)
        queue = AdmissionQueue(capacity: self.slots, maxWaiting: self.maxWaiting)
    }

    /// Takes a slot, waiting for one if none is free; `false` (no slot taken) when too many wait.
    public func enter() async -> Bool { await queue.enter(1) }

    /// How many reads wait for a slot now.
    public var waiting: Int { queue.waiting }

    /// Gives a slot back: to the longest waiting read, if any.
    public func leave() { queue.leave(1) }

    /// Runs `read` in a slot, or throws `503 service_unavailable` with `Retry-After: 1`.
    func run<T>(_ read: () async throws -> T) async throws -> T {
        guard await enter() else {
            throw Problem(.serviceUnavailable, .expensiveReadsBusy, headers: [.retryAfter: "1"])
        }
        defer { leave() }
        return try await read()
    }
}
