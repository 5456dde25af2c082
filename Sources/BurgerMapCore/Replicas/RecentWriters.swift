import Synchronization

/// Who wrote within the last few seconds (`--read-your-writes`): their signed-in reads go to the
/// primary, so that nobody reads a replica that has not yet replayed their own write.
///
/// Every instance feeds it from the event log: each write records an event naming its actor, in
/// the write's transaction, and on PostgreSQL another instance's events arrive by `NOTIFY` within
/// milliseconds (the log's poll within a second). The instance that took a write also notes it
/// at once, before its answer goes out (`AccessTokenMiddleware`), because its own event comes
/// back only after a read of the log. So the rule holds whichever instance a user's next request
/// reaches, without sticky load balancing, and costs a request one dictionary lookup.
///
/// Times are this process's clock when it learned of the write, never the writer's clock: the
/// window starts no earlier than the write, whatever the skew between machines.
///
/// Bounded: at most `capacity` users. Making room for one more while the oldest is still inside
/// its window sends every signed-in read to the primary until that window would have ended,
/// as does the first window after start (writes made just before this process started are not
/// in the log it follows): both may cost the replicas some reads, never a stale answer.
public final class RecentWriters: Sendable {
    /// How long after a write its writer reads the primary.
    public let window: Duration
    /// The most users kept at once.
    public let capacity: Int
    private let windowMilliseconds: Int64
    private let state: Mutex<State>

    struct State {
        /// Each user's last write, in milliseconds.
        var last: [Int64: Int64] = [:]
        /// The writes in the order they were noted (a user may appear more than once): pruning
        /// pops from the front, so it costs O(1) a write instead of a walk of `last`.
        var order: [(user: Int64, at: Int64)] = []
        var head = 0
        /// Until when every signed-in reader counts as a recent writer.
        var everyoneUntil: Int64
    }

    /// - Parameters:
    ///   - window: `--read-your-writes`.
    ///   - capacity: 100,000 users take about 5 MB; with a 5 s window that is 20,000 writers a
    ///     second, far beyond what one primary takes.
    ///   - start: when this process started following the log.
    public init(window: Duration, capacity: Int = 100_000, startingAt start: Timestamp = .now()) {
        precondition(capacity > 0)
        self.window = window
        self.capacity = capacity
        windowMilliseconds = window.milliseconds
        state = Mutex(State(everyoneUntil: start.milliseconds + window.milliseconds))
    }

    /// Notes that `user` wrote (or that this process just learned of their write).
    public func noteWrite(by user: Int64, at time: Timestamp = .now()) {
        let now = time.milliseconds
        let window = windowMilliseconds
        let capacity = capacity
        state.withLock { state in
            Self.prune(&state, before: now - window)
            if let last = state.last[user], last >= now { return }
            state.last[user] = now
            state.order.append((user, now))
            // Over the bound: the oldest writers go first. One still inside its window leaves
            // everyone's signed-in reads on the primary until that window ends.
            while state.last.count > capacity || state.order.count - state.head > 4 * capacity {
                let oldest = state.order[state.head]
                state.head += 1
                guard state.last[oldest.user] == oldest.at else { continue }
                state.last[oldest.user] = nil
                state.everyoneUntil = max(state.everyoneUntil, oldest.at + window)
            }
            Self.compact(&state)
        }
    }

    /// Counts every signed-in reader as a recent writer for one window from `time`: the writes
    /// before it are not known (the log is followed from its end as of `time`).
    public func noteUnknownWrites(at time: Timestamp = .now()) {
        let until = time.milliseconds + windowMilliseconds
        state.withLock { $0.everyoneUntil = max($0.everyoneUntil, until) }
    }

    /// Whether `user` wrote within the window before `time` (or every signed-in reader counts as
    /// one just now: see the type's notes).
    public func wroteRecently(_ user: Int64, at time: Timestamp = .now()) -> Bool {
        let now = time.milliseconds
        let window = windowMilliseconds
        return state.withLock { state in
            if now < state.everyoneUntil { return true }
            guard let last = state.last[user] else { return false }
            return last > now - window
        }
    }

    /// How many users are kept (some may be past their window until the next write prunes them).
    public var count: Int { state.withLock { $0.last.count } }

    /// Forgets the writes noted at or before `cutoff`, oldest first.
    private static func prune(_ state: inout State, before cutoff: Int64) {
        while state.head < state.order.count, state.order[state.head].at <= cutoff {
            let oldest = state.order[state.head]
            state.head += 1
            if state.last[oldest.user] == oldest.at { state.last[oldest.user] = nil }
        }
        compact(&state)
    }

    /// Drops the popped front of `order` once it is most of the array.
    private static func compact(_ state: inout State) {
        if state.head == state.order.count {
            state.order.removeAll(keepingCapacity: true)
            state.head = 0
        } else if state.head > 1_024, state.head * 2 > state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }
}
