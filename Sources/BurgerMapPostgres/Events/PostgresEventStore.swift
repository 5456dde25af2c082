import BurgerMapCore
import Logging
import PostgresNIO

/// The `events` table on PostgreSQL, its readers' wake-ups across instances, and the write
/// transactions that record events.
///
/// PostgreSQL takes an event's id from a sequence before its transaction commits, so ids commit
/// out of order: a reader could see id 11 while 10 is still in flight, resume after 11, and never
/// see 10. Readers therefore stop at a hole until the transactions that may hold it have ended
/// (`EventHoles`); only then is the hole known to be a rollback's, and passed.
///
/// Which transactions may hold a hole: every transaction that records an event first takes a
/// shared advisory lock of the schema (`writerLock`, in the statement that takes the id, before
/// the id), and keeps it to its end. Shared locks never wait for one another, so writers still
/// wait for nothing; a reader reads the lock's holders in the statement that reads the rows, and
/// waits for those alone. (Waiting for every transaction running on the cluster instead stalled
/// delivery for as long as any long write ran, an import of a million rows for minutes.)
///
/// Other instances learn of new events by `NOTIFY`, sent after commit by a task of this process
/// (bursts of writes share one); the table stays the source of truth and `EventLog` also polls.
public struct PostgresEventStore: EventStore {
    let pool: PostgresPool
    let connectionConfiguration: PostgresConnection.Configuration
    let logger: Logger
    /// The channel of this database and schema (instances on other schemas are not woken).
    let channel: String
    public let eventSignal: EventSignal
    /// Rings after this process's write transactions: the notifier sends `NOTIFY` on it.
    let localWrites: EventSignal
    let holes: EventHoles

    init(
        pool: PostgresPool, connectionConfiguration: PostgresConnection.Configuration, schema: String?,
        logger: Logger
    ) {
        self.pool = pool
        self.connectionConfiguration = connectionConfiguration
        self.logger = logger
        channel = "burgermap_events_" + (schema ?? "public")
        eventSignal = EventSignal()
        localWrites = EventSignal()
        holes = EventHoles()
    }

    /// `client.transaction` for a write that may record events: when it commits, readers in this
    /// process are woken and other instances notified.
    func transaction<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let result = try await pool.transaction(logger: logger, isolation: isolation, body)
        committed()
        return result
    }

    /// Wakes this process's readers and has other instances notified, after a write transaction
    /// that may have recorded events committed.
    func committed() {
        eventSignal.ring()
        localWrites.ring()
    }

    /// The shared advisory lock an event's writer holds from before its id to its end: one key
    /// per schema (the first of the search path), in the form `pg_locks` shows it (`classid` 0,
    /// `objid` the key, `objsubid` 1).
    static let writerLockKey = "(hashtext(current_schema()) & 2147483647)"
    /// The subquery that runs before an event's id is taken (`OFFSET 0` keeps it a subquery;
    /// its volatile calls are never left out): the transaction's id, then the writers' lock.
    static let writerLock =
        "(SELECT pg_current_xact_id(), pg_advisory_xact_lock_shared(\(writerLockKey)::bigint) OFFSET 0) AS writer"

    /// Records `event` in the transaction that `connection` runs, after `writerLock`; answers
    /// its id (the notification worker keeps it in the group the event is about).
    @discardableResult
    static func record(
        _ event: DomainEvent, at time: Timestamp, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int64 {
        let rows = try await connection.query(
            """
            INSERT INTO events (id, time, kind, actor, subject, payload)
            SELECT nextval('events_id_seq'), \(time.milliseconds), \(event.kind.rawValue), \(event.actor),
                \(event.subject), \(event.details.json)
            FROM \(unescaped: writerLock)
            RETURNING id
            """, logger: logger)
        var id: Int64?
        for try await value in rows.decode(Int64.self) { id = value }
        guard let id else { throw StorageError.rowVanished("events") }
        return id
    }

    public func events(after id: Int64, limit: Int) async throws -> [RecordedEvent] {
        // A hole first met in a read can be judged only by a later one (its holders are read
        // after the read's snapshot): read once more at once rather than at the next wake-up.
        var answer: [RecordedEvent] = []
        for _ in 0..<2 {
            let (found, newHole) = try await read(after: id, limit: limit)
            answer = found
            if !newHole { break }
        }
        return answer
    }

    /// One read: the rows after `id`, the snapshot they were read in, and the transactions that
    /// held the writers' lock then; answers the rows up to the first hole that may still fill,
    /// and whether that hole was met for the first time.
    private func read(after id: Int64, limit: Int) async throws -> (events: [RecordedEvent], newHole: Bool) {
        // Taken before the statement is sent, so before its snapshot (`EventHoles.judge`).
        let started = holes.ticket()
        let rows = try await pool.query(Self.readStatement(after: id, limit: limit), logger: logger)
        return try await judge(rows, after: id, started: started)
    }

    /// The rows after `id` with the statement's snapshot and the writers' lock holders, read
    /// after the snapshot (`pg_locks` is not versioned).
    static func readStatement(after id: Int64, limit: Int) -> PostgresQuery {
        """
        SELECT s.snapshot, h.holders, e.id, e.time, e.kind, e.actor, e.subject, e.payload
        FROM (SELECT pg_current_snapshot()::text AS snapshot) AS s
        CROSS JOIN (
            SELECT coalesce(string_agg(a.backend_xid::text, ','), '') AS holders
            FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = \(unescaped: Self.writerLockKey)::oid
                AND l.objsubid = 1 AND l.granted AND a.backend_xid IS NOT NULL
        ) AS h
        LEFT JOIN LATERAL (
            SELECT id, time, kind, actor, subject, payload FROM events WHERE id > \(id) ORDER BY id LIMIT \(limit)
        ) AS e ON true
        ORDER BY e.id
        """
    }

    /// The answer of one read whose statement (`readStatement`) answered `rows`, sent after
    /// `started` was taken.
    func judge(_ rows: some AsyncSequence<PostgresRow, any Error>, after id: Int64, started: UInt64) async throws -> (
        events: [RecordedEvent], newHole: Bool
    ) {
        var snapshotText = ""
        var holdersText = ""
        var found: [(id: Int64, event: RecordedEvent?)] = []
        for try await (snapshot, holders, eventID, time, kind, actor, subject, payload) in rows.decode(
            (String, String, Int64?, Int64?, String?, Int64?, Int64?, String?).self)
        {
            snapshotText = snapshot
            holdersText = holders
            guard let eventID, let time, let kind, let subject, let payload else { continue }
            found.append(
                (
                    eventID,
                    RecordedEvent(id: eventID, time: time, kind: kind, actor: actor, subject: subject, payload: payload)
                ))
        }
        guard let snapshot = TransactionSnapshot(snapshotText) else { return ([], false) }
        let holders = Set(holdersText.split(separator: ",").compactMap { UInt32($0) })
        let read = EventHoles.Read(started: started, answered: holes.ticket(), snapshot: snapshot, holders: holders)
        var answer: [RecordedEvent] = []
        var expected = id + 1
        for (eventID, event) in found {
            if eventID != expected {
                switch holes.judge(expected..<eventID, in: read) {
                case .passable: break
                case .waiting: return (answer, false)
                case .new: return (answer, true)
                }
            }
            if let event { answer.append(event) }
            expected = eventID + 1
        }
        return (answer, false)
    }

    public func lastEventID() async throws -> Int64 {
        let rows = try await pool.query("SELECT coalesce(max(id), 0) FROM events", logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }

    /// The id of the oldest event kept, or 0.
    public func firstEventID() async throws -> Int64 {
        let rows = try await pool.query("SELECT coalesce(min(id), 0) FROM events", logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }

    public func pruneEvents(writtenBefore cutoff: Timestamp, limit: Int) async throws -> Int {
        let rows = try await pool.query(
            """
            WITH gone AS (
                DELETE FROM events
                WHERE id IN (SELECT id FROM events ORDER BY id LIMIT \(limit)) AND time < \(cutoff.milliseconds)
                RETURNING 1
            )
            SELECT count(*)::bigint FROM gone
            """, logger: logger)
        for try await value in rows.decode(Int64.self) { return Int(value) }
        return 0
    }

    /// Listens on the channel with a connection of its own (rings `eventSignal` for every
    /// notification, and once after each connect, for what was missed meanwhile), and sends
    /// one `NOTIFY` after each burst of this process's writes. Reconnects by itself after the
    /// database went away, waiting 0.1 s and doubling up to 5 s.
    public func listenForEvents() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await listen() }
            group.addTask { await notifyOthers() }
        }
    }

    private func listen() async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: connectionConfiguration, id: 1, logger: logger)
                do {
                    try await connection.listen(on: channel) { notifications in
                        eventSignal.ring()
                        delay = .milliseconds(100)
                        for try await _ in notifications { eventSignal.ring() }
                    }
                } catch {}
                try? await connection.close()
            } catch {}
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// One `NOTIFY` per burst of this process's writes, at most one every `notifyInterval`:
    /// writes that commit meanwhile share the next (a `NOTIFY` per like took 11% of the likes'
    /// throughput, scripts/bench-likes; other instances learn of a write within the interval
    /// and a round trip).
    private func notifyOthers() async {
        for await _ in localWrites.rings() {
            _ = try? await pool.query("SELECT pg_notify(\(channel), '')", logger: logger)
            try? await Task.sleep(for: Self.notifyInterval)
        }
    }

    /// The shortest time between two `NOTIFY`s of one process.
    static let notifyInterval = Duration.milliseconds(20)
}
