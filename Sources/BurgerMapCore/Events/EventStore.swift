/// Where events live: the `events` table, which each engine writes in the transaction of the
/// write the event tells of, so that an acknowledged write always has its event and a
/// rolled-back one never does.
public protocol EventStore: Sendable {
    /// Up to `limit` events with ids above `id`, in id order, such that no event that commits
    /// later can have an id below the last one answered: a reader that resumes after it never
    /// skips one. (SQLite commits one writer at a time, so its ids grow in commit order.
    /// PostgreSQL takes ids before commit: its engine answers only up to a hole until the
    /// transactions that might fill it have ended.)
    func events(after id: Int64, limit: Int) async throws -> [RecordedEvent]
    /// The id of the newest event, or 0: where a subscriber that wants only new events starts.
    func lastEventID() async throws -> Int64
    /// The id of the oldest event kept, or 0 when there is none: a reader that stopped before
    /// it has missed pruned events.
    func firstEventID() async throws -> Int64
    /// Deletes up to `limit` of the oldest events written before `cutoff`; answers how many.
    func pruneEvents(writtenBefore cutoff: Timestamp, limit: Int) async throws -> Int
    /// Rings whenever events may have been written: by this process's writes and, on
    /// PostgreSQL, by every instance's (`LISTEN` / `NOTIFY`). A missed ring costs latency,
    /// never an event: `EventLog` also polls.
    var eventSignal: EventSignal { get }
    /// Runs what the engine needs to ring `eventSignal` for other instances' writes (the
    /// PostgreSQL listener), until cancelled; returns at once where nothing is needed.
    func listenForEvents() async
}

extension EventStore {
    public func listenForEvents() async {}
}
