import DequeModule
import Foundation
import Synchronization

/// A bound on the reads that may cost more than most (a viewport, a filtered nearby search):
/// at most `slots` run at once (half the cores), the next `maxWaiting` wait their turn without
/// holding a thread, and one more is turned away (`503` with `Retry-After`). Each such read is
/// itself bounded (`ReadBounds`), so a wait lasts a few of them; a flood of them then takes at
/// most half the machine, and `/health`, nearby searches and everything else keep the rest.
public final class ReadGate: Sendable {
    private struct State {
        var busy = 0
        var waiting: Deque<CheckedContinuation<Bool, Never>> = []
    }

    public let slots: Int
    public let maxWaiting: Int
    private let state = Mutex(State())

    public init(slots: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), maxWaiting: Int = 32) {
        self.slots = max(1, slots)
        self.maxWaiting = max(0, maxWaiting)
    }

    /// Takes a slot, waiting for one if none is free; `false` (no slot taken) when too many wait.
    public func enter() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer: Bool? = state.withLock { state in
                if state.busy < slots {
                    state.busy += 1
                    return true
                }
                guard state.waiting.count < maxWaiting else { return false }
                state.waiting.append(continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// How many reads wait for a slot now.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// Gives a slot back: to the longest waiting read, if any.
    public func leave() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if let next = state.waiting.popFirst() { return next }
            state.busy -= 1
            return nil
        }
        next?.resume(returning: true)
    }

    /// Runs `read` in a slot, or throws `503 service_unavailable` with `Retry-After: 1`.
    func run<T>(_ read: () async throws -> T) async throws -> T {
        guard await enter() else {
            throw Problem(.serviceUnavailable, .expensiveReadsBusy, headers: [.retryAfter: "1"])
        }
        defer { leave() }
        return try await read()
    }
}
