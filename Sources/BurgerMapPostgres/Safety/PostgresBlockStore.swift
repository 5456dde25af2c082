import BurgerMapCore
import Logging
import PostgresNIO

/// Blocks in PostgreSQL, as on SQLite (`AppDatabase+Blocks.swift`).
public struct PostgresBlockStore: BlockStore {
    let pool: PostgresPool
    let logger: Logger
    /// Records the events of this store's writes, in their transactions.
    let events: PostgresEventStore

    /// Blocks or unblocks a user (see `BlockStore.setBlock`). The follows between the two go
    /// in the same transaction (their count triggers follow).
    public func setBlock(_ active: Bool, blocker: Int64, blocked: Int64, at time: Timestamp) async throws -> Bool? {
        try await events.transaction(logger: logger) { connection in
            // Both users' rows, in id order, as follows lock them: no follow slips in meanwhile.
            let rows = try await connection.query(
                """
                SELECT id FROM users WHERE id IN (\(blocker), \(blocked)) ORDER BY id FOR NO KEY UPDATE
                """, logger: logger)
            var found: Set<Int64> = []
            for try await id in rows.decode(Int64.self) { found.insert(id) }
            guard found.contains(blocked) else { return nil }
            let rowChanged: Bool
            var ended: [BlockRules.EndedFollow] = []
            if active {
                let inserted = try await connection.query(
                    """
                    INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (\(blocker), \(blocked), \(time.milliseconds))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger)
                rowChanged = try await PostgresRows.exist(inserted)
                // The follows the block ends (`BlockRules`).
                let deleted = try await connection.query(
                    """
                    DELETE FROM follows WHERE (follower_id = \(blocker) AND followee_id = \(blocked))
                        OR (follower_id = \(blocked) AND followee_id = \(blocker))
                    RETURNING follower_id, followee_id
                    """, logger: logger)
                for try await (follower, followee) in deleted.decode((Int64, Int64).self) {
                    ended.append(BlockRules.EndedFollow(follower: follower, followee: followee))
                }
            } else {
                let deleted = try await connection.query(
                    "DELETE FROM blocks WHERE blocker_id = \(blocker) AND blocked_id = \(blocked) RETURNING 1",
                    logger: logger)
                rowChanged = try await PostgresRows.exist(deleted)
            }
            let changes = BlockRules.events(
                blocking: active, blocker: blocker, blocked: blocked, rowChanged: rowChanged, endedFollows: ended)
            for event in changes {
                try await PostgresEventStore.record(event, at: time, on: connection, logger: logger)
            }
            return active
        }
    }

    /// The users `blocker` blocks, newest block first.
    public func blocks(of blocker: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<User> {
        let (time, id) = PostgresKeyset.below(after)
        let rows = try await pool.query(
            """
            SELECT b.created_at, \(unescaped: PostgresUserRow.columns)
            FROM blocks AS b JOIN users AS u ON u.id = b.blocked_id
            WHERE b.blocker_id = \(blocker) AND (b.created_at, b.blocked_id) < (\(time), \(id))
            ORDER BY b.created_at DESC, b.blocked_id DESC LIMIT \(Int64(limit) + 1)
            """, logger: logger)
        var users: [(time: Int64, user: User)] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            users.append((try row[0].decode(Int64.self), try PostgresAccountStore.user(row, from: 1)))
        }
        return KeysetPage(
            rows: users, limit: limit, item: \.user,
            key: { TimeKey(time: Timestamp(milliseconds: $0.time), id: $0.user.id) })
    }

    /// Whether either user blocks the other.
    public func isBlocked(_ user: Int64, _ other: Int64) async throws -> Bool {
        let rows = try await pool.query(
            """
            SELECT 1 FROM blocks WHERE (blocker_id = \(user) AND blocked_id = \(other))
                OR (blocker_id = \(other) AND blocked_id = \(user))
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// Whether `user` and a review's author block one another.
    public func isBlocked(_ user: Int64, authorOf reviewID: Int64) async throws -> Bool {
        let rows = try await pool.query(
            """
            SELECT 1 FROM reviews AS r JOIN blocks AS b
                ON (b.blocker_id = \(user) AND b.blocked_id = r.author_id) OR (b.blocker_id = r.author_id AND b.blocked_id = \(user))
            WHERE r.id = \(reviewID)
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }
}
