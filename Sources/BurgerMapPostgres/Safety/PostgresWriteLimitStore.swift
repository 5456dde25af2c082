import BurgerMapCore
import Logging
import PostgresNIO

/// The write counts in PostgreSQL, as on SQLite: one upsert per write, atomic per
/// (user, action, window) across every instance on the database.
public struct PostgresWriteLimitStore: WriteLimitStore {
    let pool: PostgresPool
    let logger: Logger

    /// Counts a write unless its window is full (see `WriteLimitStore.countWrite`).
    public func countWrite(
        user: Int64, action: WriteAction, windowStart: Timestamp, limit: Int, forgetBefore: Timestamp
    ) async throws -> Bool {
        try await pool.withConnection { connection in
            try await connection.query(
                """
                DELETE FROM write_counts WHERE ctid IN (
                    SELECT ctid FROM write_counts WHERE window_start < \(forgetBefore.milliseconds)
                    LIMIT \(Int64(ThrottleKeyState.sweepLimit)))
                """, logger: logger)
            // The upsert adds one only while the count is under the limit; no row back: full.
            let rows = try await connection.query(
                """
                INSERT INTO write_counts AS w (user_id, action, window_start, count)
                VALUES (\(user), \(action.rawValue), \(windowStart.milliseconds), 1)
                ON CONFLICT (user_id, action, window_start) DO UPDATE SET count = w.count + 1
                WHERE w.count < \(Int64(limit))
                RETURNING w.count
                """, logger: logger)
            for try await _ in rows.decode(Int64.self) { return true }
            return false
        }
    }
}
