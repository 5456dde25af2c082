import Synchronization

/// A `pg_current_snapshot()`: `xmin:xmax:xip,…`. Transactions in `running` were running.
struct TransactionSnapshot: Sendable {
    var running: Set<UInt32>

    /// Only the running transactions matter here, by their 32-bit ids (`pg_stat_activity`'s
    /// `backend_xid` form): ids of transactions running at one moment never wrap into each other.
    init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        running = Set(parts[2].split(separator: ",").compactMap { UInt64($0).map { UInt32(truncatingIfNeeded: $0) } })
    }
}

/// The holes in the event ids that readers have met, each with the transactions that held the
/// writers' lock when it was first seen: one of them may still commit an event into it. Shared
/// by the readers of a process; bounded (a forgotten hole is only judged once more).
///
/// A hole is passed only in a read whose snapshot was taken after the holders were read. The
/// reads of a process run at once (the notification worker, the tile caches, each stream…), so
/// "later" is told by tickets: one taken before a read's statement is sent, one after its answer
/// came. A hole's holders miss a transaction that committed into it between the snapshot and
/// the lock's read; a read whose snapshot is older still sees that transaction running, not its
/// event, and judging it by its answer's order rather than its start made it pass the hole and
/// skip the event (scripts/multi-instance, once in about fifteen runs).
final class EventHoles: Sendable {
    enum Judgement { case passable, waiting, new }

    /// What a read brings to the judgement of a hole.
    struct Read {
        /// The ticket taken before its statement was sent: its snapshot is later than every
        /// answer whose ticket is lower.
        var started: UInt64
        /// The ticket taken once its answer came: its holders were read before it.
        var answered: UInt64
        var snapshot: TransactionSnapshot
        var holders: Set<UInt32>
    }

    private struct Hole {
        var end: Int64
        var holders: Set<UInt32>
        /// The `answered` ticket of the read that met it first.
        var seenBefore: UInt64
        var passable = false
    }
    private let state = Mutex<(tickets: UInt64, holes: [Int64: Hole])>((0, [:]))
    static let capacity = 4_096

    /// The next ticket, increasing.
    func ticket() -> UInt64 {
        state.withLock { state in
            state.tickets += 1
            return state.tickets
        }
    }

    /// Whether a reader may move past the missing ids `range` in `read`: yes once the read
    /// started after the hole's holders were read and none of those holders runs in its
    /// snapshot (then a holder that committed would show its event there: the hole was a
    /// rollback's).
    func judge(_ range: Range<Int64>, in read: Read) -> Judgement {
        state.withLock { state in
            if let hole = state.holes[range.lowerBound], hole.end == range.upperBound {
                if hole.passable { return .passable }
                guard hole.seenBefore < read.started, hole.holders.isDisjoint(with: read.snapshot.running) else {
                    return .waiting
                }
                state.holes[range.lowerBound]?.passable = true
                return .passable
            }
            if state.holes.count >= Self.capacity, let oldest = state.holes.keys.min() {
                state.holes.removeValue(forKey: oldest)
            }
            state.holes[range.lowerBound] = Hole(
                end: range.upperBound, holders: read.holders, seenBefore: read.answered)
            return .new
        }
    }
}
