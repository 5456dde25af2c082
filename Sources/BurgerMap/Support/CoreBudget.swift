import BurgerMapCore
import Foundation
import Synchronization

/// The cores one kind of work may occupy: image work (each job holds one while it runs; a job
/// may borrow a second one for a helper thread only when one is idle, so threads busy with
/// images never outnumber the cores), and searches that scan every place's name
/// (`ServiceConfiguration.searchScans`).
public final class CoreBudget: Sendable {
    private let busy = Atomic<Int>(0)
    public let cores: Int

    public init(cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.cores = max(1, cores)
    }

    /// Takes an idle core if there is one.
    public func borrow() -> Bool {
        var current = busy.load(ordering: .relaxed)
        while current < cores {
            let (exchanged, original) = busy.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Returns a core taken with `borrow` or `occupy`.
    public func giveBack() {
        busy.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Takes a core for a job (the worker pool never runs more jobs than cores).
    public func occupy() {
        busy.add(1, ordering: .acquiringAndReleasing)
    }
}
