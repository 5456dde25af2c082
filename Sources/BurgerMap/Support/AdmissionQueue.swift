import BurgerMapCore
import DequeModule
import Synchronization

/// Admits work by weight up to a capacity, first come, first served: work that does not fit
/// waits its turn without holding a thread, at most `maxWaiting` of it (more is refused at once).
/// Work heavier than the whole capacity still runs, alone. The one mechanism behind the bound on
/// expensive reads (`ReadGate`, weight 1 a read) and on decoded image bytes (`DecodeMemoryBudget`).
final class AdmissionQueue: Sendable {
    private struct State {
        var inUse = 0
        var waiting: Deque<(weight: Int, continuation: CheckedContinuation<Bool, Never>)> = []
    }

    let capacity: Int
    let maxWaiting: Int
    private let state = Mutex(State())

    init(capacity: Int, maxWaiting: Int = .max) {
        self.capacity = max(1, capacity)
        self.maxWaiting = max(0, maxWaiting)
    }

    /// How much work waits now.
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Takes `weight`, waiting until it fits; `false` (nothing taken) when too much work waits.
    func enter(_ weight: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer: Bool? = state.withLock { state in
                if state.waiting.isEmpty, state.inUse == 0 || state.inUse + weight <= capacity {
                    state.inUse += weight
                    return true
                }
                guard state.waiting.count < maxWaiting else { return false }
                state.waiting.append((weight, continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Gives `weight` back and admits the waiting work that now fits, in order.
    func leave(_ weight: Int) {
        let admitted = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.inUse -= weight
            var admitted: [CheckedContinuation<Bool, Never>] = []
            while let first = state.waiting.first, state.inUse == 0 || state.inUse + first.weight <= capacity {
                state.inUse += first.weight
                admitted.append(first.continuation)
                state.waiting.removeFirst()
            }
            return admitted
        }
        for continuation in admitted { continuation.resume(returning: true) }
    }
}
