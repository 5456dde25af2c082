import BurgerMapCore
import GRDB

/// The `events` table: every write that someone else may care about records its event here,
/// in its own transaction (`recordEvent`). SQLite commits one writer at a time, so ids grow in
/// commit order and a reader that resumes after an id never skips an event (a rolled-back
/// write leaves a hole that nothing fills later).
extension AppDatabase: EventStore {
    /// Records `event` in the write transaction of `db`; readers in this process are woken when
    /// it commits (nothing rings for a rollback).
    func recordEvent(_ event: DomainEvent, at time: Timestamp, in db: Database) throws {
        try db.cachedStatement(
            sql: "INSERT INTO events (time, kind, actor, subject, payload) VALUES (?, ?, ?, ?, ?)"
        ).execute(arguments: [
            time.milliseconds, event.kind.rawValue, event.actor, event.subject, event.details.json,
        ])
        ringWhenCommitted(db)
    }

    /// Rings `eventSignal` when the write transaction of `db` commits (nothing rings for a
    /// rollback): readers of events wake, and the signed-in users the service keeps are read again.
    func ringWhenCommitted(_ db: Database) {
        let signal = eventSignal
        db.afterNextTransaction { _ in signal.ring() }
    }

    public func events(after id: Int64, limit: Int) async throws -> [RecordedEvent] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, time, kind, actor, subject, payload FROM events
                    WHERE id > ? ORDER BY id LIMIT ?
                    """, arguments: [id, limit]
            ).compactMap {
                RecordedEvent(
                    id: $0[0], time: $0[1], kind: $0[2], actor: $0[3], subject: $0[4], payload: $0[5])
            }
        }
    }

    public func lastEventID() async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM events") ?? 0 }
    }

    public func firstEventID() async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT min(id) FROM events") ?? 0 }
    }

    /// Looks at the `limit` oldest events only, so that a call costs the same whatever the
    /// table holds (times follow ids but for clock steps; a late straggler waits a round).
    public func pruneEvents(writtenBefore cutoff: Timestamp, limit: Int) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT ?) AND time < ?
                    """, arguments: [limit, cutoff.milliseconds])
            return db.changesCount
        }
    }
}
