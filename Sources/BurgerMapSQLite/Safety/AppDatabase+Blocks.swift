import BurgerMapCore
import GRDB

extension AppDatabase: BlockStore {
    /// The ids of the users a viewer does not see: those they block and those who block them.
    /// One non-correlated subquery, which SQLite reads once per statement into a temporary index
    /// (the liked and bookmarked lists, which filter through the reviews table).
    static let blockedAuthors = """
        (SELECT blocked_id FROM blocks WHERE blocker_id = ? UNION ALL SELECT blocker_id FROM blocks WHERE blocked_id = ?)
        """

    /// True when the author in `column` and the viewer (the argument, three times; none: true)
    /// do not block one another: two primary-key probes per row the list reads. A page reads
    /// about its size in rows, so this costs the same whatever the number of blocks, where
    /// `blockedAuthors` reads the viewer's whole block set first: with 1,000 blocks a place's
    /// first page cost 1.20× the read without blocks that way, 0.98× this way
    /// (`scripts/bench-feed --engines`).
    static func notBlocked(_ column: String) -> String {
        """
        (? IS NULL OR (NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = \(column))
            AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(column) AND blocked_id = ?)))
        """
    }

    /// Blocks or unblocks a user (see `BlockStore.setBlock`).
    public func setBlock(_ active: Bool, blocker: Int64, blocked: Int64, at time: Timestamp = .now()) async throws
        -> Bool?
    {
        try await measured("set_block") {
            try await pool.write { db in
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [blocked]) == true
                else {
                    return nil
                }
                var ended: [BlockRules.EndedFollow] = []
                if active {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO blocks (blocker_id, blocked_id, created_at) VALUES (?, ?, ?)",
                        arguments: [blocker, blocked, time.milliseconds])
                } else {
                    try db.execute(
                        sql: "DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?",
                        arguments: [blocker, blocked])
                }
                let rowChanged = db.changesCount > 0
                if active {
                    // The follows the block ends (`BlockRules`).
                    ended = try Row.fetchAll(
                        db,
                        sql: """
                            DELETE FROM follows WHERE (follower_id = ?1 AND followee_id = ?2)
                                OR (follower_id = ?2 AND followee_id = ?1)
                            RETURNING follower_id, followee_id
                            """, arguments: [blocker, blocked]
                    ).map { BlockRules.EndedFollow(follower: $0[0], followee: $0[1]) }
                }
                let events = BlockRules.events(
                    blocking: active, blocker: blocker, blocked: blocked, rowChanged: rowChanged, endedFollows: ended)
                for event in events { try self.recordEvent(event, at: time, in: db) }
                return active
            }
        }
    }

    /// The users `blocker` blocks, newest block first.
    public func blocks(of blocker: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<User> {
        try await pool.read { db in
            let query = KeysetOrder.newestFirst.query(
                "SELECT b.blocked_id, b.created_at, \(Self.qualified(Self.userColumns, by: "u")) FROM blocks AS b JOIN users AS u ON u.id = b.blocked_id",
                where: "b.blocker_id = ?", [blocker], time: "b.created_at", id: "b.blocked_id", after: after,
                limit: limit)
            let rows = try Row.fetchAll(db, sql: query.sql, arguments: query.arguments)
            return KeysetPage(
                rows: rows, limit: limit, item: { Self.user($0) },
                key: { TimeKey(time: Timestamp(milliseconds: $0["created_at"]), id: $0["blocked_id"]) })
        }
    }

    /// Whether either user blocks the other.
    public func isBlocked(_ user: Int64, _ other: Int64) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT 1 FROM blocks WHERE (blocker_id = ?1 AND blocked_id = ?2) OR (blocker_id = ?2 AND blocked_id = ?1)
                    """, arguments: [user, other]) == true
        }
    }

    /// Whether `user` and a review's author block one another.
    public func isBlocked(_ user: Int64, authorOf reviewID: Int64) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT 1 FROM reviews AS r JOIN blocks AS b
                        ON (b.blocker_id = ?1 AND b.blocked_id = r.author_id) OR (b.blocker_id = r.author_id AND b.blocked_id = ?1)
                    WHERE r.id = ?2
                    """, arguments: [user, reviewID]) == true
        }
    }
}
