import BurgerMapCore
import Foundation
import Logging
import PostgresNIO

/// Notification groups, the worker's progress, users' settings and stream tickets in
/// PostgreSQL, with the same answers as the SQLite engine (`AppDatabase+NotificationApply.swift`
/// and `AppDatabase+NotificationReads.swift`; the reads are in PostgresNotificationStore+Reads.swift).
///
/// SQLite runs one write at a time; here the worker's batch and a user's `markNotificationsRead`
/// could interleave, and an entry would join a group marked read after the worker found it
/// open. The batch therefore holds the advisory lock `lockKey` exclusively and marking read
/// holds it shared: each sees the other whole, as on SQLite. Both take it before any group's
/// row, so the two never wait for each other in a cycle.
public struct PostgresNotificationStore: NotificationStore {
    let pool: PostgresPool
    let logger: Logger
    /// Records the `notification.updated` events, in the worker's transactions.
    let events: PostgresEventStore

    static let lockKey: Int64 = 0x6E6F_7469_6679  // "notify"

    /// A batch that found the progress moved on: its transaction rolls back.
    private struct StaleProgress: Error {}

    /// The id of the last event the notification worker applied (0 at first).
    public func notificationProgress() async throws -> Int64 {
        let rows = try await pool.query(
            "SELECT last_event_id FROM notification_progress WHERE id = 1", logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }

    /// Moves the progress first: the row's lock serialises the workers of every instance. A
    /// second worker's update waits for the first to commit, then finds the progress moved on
    /// (READ COMMITTED checks the row anew) and changes nothing.
    public func applyNotifications(_ changes: [NotificationChange], after previous: Int64, through last: Int64)
        async throws -> Bool
    {
        let logger = logger
        do {
            return try await events.transaction(logger: logger) { connection in
                let moved = try await connection.query(
                    """
                    UPDATE notification_progress SET last_event_id = \(last)
                    WHERE id = 1 AND last_event_id = \(previous) RETURNING 1
                    """, logger: logger)
                guard try await PostgresRows.exist(moved) else { throw StaleProgress() }
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
                var batch = PostgresNotificationBatch(connection: connection, logger: logger)
                for change in changes { try await batch.apply(change) }
                try await batch.settle()
                return true
            }
        } catch is StaleProgress {
            return false
        }
    }

    /// The user's settings, the defaults when they never changed one.
    public func notificationSettings(for user: Int64) async throws -> NotificationSettings {
        let rows = try await pool.query(
            "SELECT list_mask, push_mask FROM notification_settings WHERE user_id = \(user)", logger: logger)
        for try await (list, push) in rows.decode((Int, Int).self) {
            return NotificationSettings(listMask: list, pushMask: push)
        }
        return NotificationSettings()
    }

    /// The switches change in the statement that reads them (`(mask & ~off) | on`, which is
    /// `NotificationSettings.changing`), under the row's lock: two changes at once both count.
    public func updateNotificationSettings(
        for user: Int64, list: [NotificationType: Bool], push: [NotificationType: Bool]
    ) async throws -> NotificationSettings {
        func bits(_ changes: [NotificationType: Bool], _ value: Bool) -> Int {
            changes.filter { $0.value == value }.reduce(0) { $0 | $1.key.bit }
        }
        let (listOn, listOff) = (bits(list, true), bits(list, false))
        let (pushOn, pushOff) = (bits(push, true), bits(push, false))
        let defaults = NotificationType.defaultMask
        let rows = try await pool.query(
            """
            INSERT INTO notification_settings AS s (user_id, list_mask, push_mask)
            VALUES (\(user), (\(defaults) & ~\(listOff)) | \(listOn), (\(defaults) & ~\(pushOff)) | \(pushOn))
            ON CONFLICT (user_id) DO UPDATE SET
                list_mask = (s.list_mask & ~\(listOff)) | \(listOn), push_mask = (s.push_mask & ~\(pushOff)) | \(pushOn)
            RETURNING list_mask, push_mask
            """, logger: logger)
        for try await (list, push) in rows.decode((Int, Int).self) {
            return NotificationSettings(listMask: list, pushMask: push)
        }
        throw StorageError.rowVanished("notification_settings")
    }

    /// Keeps the language of the user's push texts (a row with the default switches if none).
    public func setNotificationLanguage(_ language: Language, for user: Int64) async throws {
        let defaults = NotificationType.defaultMask
        try await pool.query(
            """
            INSERT INTO notification_settings AS s (user_id, list_mask, push_mask, language)
            VALUES (\(user), \(defaults), \(defaults), \(language.rawValue))
            ON CONFLICT (user_id) DO UPDATE SET language = excluded.language
            WHERE s.language IS DISTINCT FROM excluded.language
            """, logger: logger)
    }

    /// Expired tickets go a few at a time, in the statement that adds one, so the table holds
    /// only the last minute's.
    public func createStreamTicket(hash: [UInt8], user: Int64, expiresAt: Timestamp, streamEndsAt: Timestamp)
        async throws
    {
        try await pool.query(
            """
            WITH expired AS (
                DELETE FROM stream_tickets WHERE hash IN (
                    SELECT hash FROM stream_tickets WHERE expires_at < \(Timestamp.now().milliseconds) LIMIT 16)
            )
            INSERT INTO stream_tickets (hash, user_id, expires_at, stream_ends_at)
            VALUES (\(Data(hash)), \(user), \(expiresAt.milliseconds), \(streamEndsAt.milliseconds))
            """, logger: logger)
    }

    /// A ticket is deleted whether or not it is still good: it is used once at most.
    public func consumeStreamTicket(hash: [UInt8], at time: Timestamp) async throws
        -> (user: Int64, streamEndsAt: Timestamp)?
    {
        let rows = try await pool.query(
            "DELETE FROM stream_tickets WHERE hash = \(Data(hash)) RETURNING user_id, expires_at, stream_ends_at",
            logger: logger)
        var found: (user: Int64, streamEndsAt: Timestamp)?
        for try await (user, expiresAt, streamEndsAt) in rows.decode((Int64, Int64, Int64).self) {
            found = expiresAt > time.milliseconds ? (user, Timestamp(milliseconds: streamEndsAt)) : nil
        }
        return found
    }
}
