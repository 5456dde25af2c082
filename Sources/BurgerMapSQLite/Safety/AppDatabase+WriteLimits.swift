import BurgerMapCore
import GRDB

extension AppDatabase: WriteLimitStore {
    /// Counts a write unless its window is full (see `WriteLimitStore.countWrite`).
    public func countWrite(
        user: Int64, action: WriteAction, windowStart: Timestamp, limit: Int, forgetBefore: Timestamp
    ) async throws -> Bool {
        try await measured("count_write") {
            try await pool.write { db in
                try db.execute(
                    sql: """
                        DELETE FROM write_counts WHERE rowid IN (
                            SELECT rowid FROM write_counts WHERE window_start < ? LIMIT ?)
                        """, arguments: [forgetBefore.milliseconds, ThrottleKeyState.sweepLimit])
                // The upsert adds one only while the count is under the limit; no row back: full.
                return try Int.fetchOne(
                    db,
                    sql: """
                        INSERT INTO write_counts (user_id, action, window_start, count) VALUES (?, ?, ?, 1)
                        ON CONFLICT (user_id, action, window_start) DO UPDATE SET count = count + 1
                        WHERE count < ?
                        RETURNING count
                        """, arguments: [user, action.rawValue, windowStart.milliseconds, limit]) != nil
            }
        }
    }
}
