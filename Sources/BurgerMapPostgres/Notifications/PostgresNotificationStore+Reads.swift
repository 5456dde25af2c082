import BurgerMapCore
import Logging
import PostgresNIO

/// Reading notification groups, marking them read and pruning emptied ones.
extension PostgresNotificationStore {
    static let groupColumns = """
        id, user_id, type, group_key, latest_event_id, changed_event_id, count, latest_at, review_id, comment_id,
        decision, read
        """

    /// A page of the user's groups with entries, newest first (`latestEventID` below `before`).
    public func notifications(for user: Int64, filter: NotificationFilter, before: Int64?, limit: Int) async throws
        -> [NotificationGroup]
    {
        let types = NotificationType.allCases.filter { filter.mask & $0.bit != 0 }.map(\.rawValue)
        return try await groups(
            """
            SELECT \(unescaped: Self.groupColumns) FROM notification_groups
            WHERE user_id = \(user) AND count > 0 AND latest_event_id < \(before ?? Int64.max)
                \(unescaped: filter.unreadOnly ? "AND NOT read " : "")AND type = ANY(\(types))
            ORDER BY latest_event_id DESC LIMIT \(Int64(limit))
            """, order: "latest_event_id DESC")
    }

    /// The user's unread groups, counted up to `cap` (the count stops there).
    public func unreadNotificationCount(for user: Int64, cap: Int) async throws -> Int {
        let rows = try await pool.query(
            """
            SELECT count(*) FROM (
                SELECT 1 FROM notification_groups WHERE user_id = \(user) AND count > 0 AND NOT read
                LIMIT \(Int64(cap))
            ) AS capped
            """, logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Holds the worker's lock shared (see `PostgresNotificationStore`): a batch either ran
    /// wholly before, or waits for this to commit.
    public func markNotificationsRead(for user: Int64, _ selection: NotificationSelection) async throws {
        if case .groupKeys(let keys) = selection, keys.isEmpty { return }
        let logger = logger
        try await pool.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.lockKey))", logger: logger)
            switch selection {
            case .upTo(let id):
                try await connection.query(
                    """
                    UPDATE notification_groups SET read = true
                    WHERE user_id = \(user) AND count > 0 AND NOT read AND latest_event_id <= \(id)
                    """, logger: logger)
            case .groupKeys(let keys):
                try await connection.query(
                    """
                    UPDATE notification_groups SET read = true
                    WHERE user_id = \(user) AND count > 0 AND NOT read AND group_key = ANY(\(keys))
                    """, logger: logger)
            }
        }
    }

    /// The user's groups changed after the event `id`, emptied ones too, in the order of their
    /// changes.
    public func changedNotifications(for user: Int64, after id: Int64, limit: Int) async throws
        -> [NotificationGroup]
    {
        try await groups(
            """
            SELECT \(unescaped: Self.groupColumns) FROM notification_groups
            WHERE user_id = \(user) AND changed_event_id > \(id) ORDER BY changed_event_id LIMIT \(Int64(limit))
            """, order: "changed_event_id")
    }

    /// One group as it is now, or `nil` when it is gone.
    public func notificationGroup(rowID: Int64) async throws -> NotificationGroup? {
        try await groups(
            "SELECT \(unescaped: Self.groupColumns) FROM notification_groups WHERE id = \(rowID)", order: "id"
        ).first
    }

    /// Deletes up to `limit` emptied groups whose last change is older than the event `id`.
    public func pruneEmptiedNotifications(changedBefore id: Int64, limit: Int) async throws -> Int {
        let rows = try await pool.query(
            """
            WITH gone AS (
                DELETE FROM notification_groups WHERE id IN (
                    SELECT id FROM notification_groups WHERE count = 0 AND changed_event_id < \(id)
                    LIMIT \(Int64(limit)))
                RETURNING 1
            )
            SELECT count(*) FROM gone
            """, logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// The groups `selection` selects (`groupColumns`, in the order `order` names), each with
    /// its latest actors, its review and its comment, in one statement: a row per actor shown
    /// (one without an actor for a group that has none).
    ///
    /// The actors are SQLite's: among the ten latest entries, each actor once at their latest
    /// entry, newest first, those whose account is gone left out, three at most. Ten entries
    /// hold three actors but when one person wrote many comments in a row, and the read stays
    /// small for a group of any size. Ties of `seq` are broken as SQLite's index breaks them.
    func groups(_ selection: PostgresQuery, order: String) async throws -> [NotificationGroup] {
        let sql = """
            SELECT g.id, g.user_id, g.type, g.group_key, g.latest_event_id, g.changed_event_id, g.count, g.latest_at,
                g.read, g.decision, r.id, r.place_id, r.text, c.id, c.text,
                a.id, a.email, a.nickname, a.bio, a.avatar_photo_id, a.created_at
            FROM (\(selection.sql)) AS g
            LEFT JOIN reviews AS r ON r.id = g.review_id
            LEFT JOIN comments AS c ON c.id = g.comment_id
            LEFT JOIN LATERAL (
                SELECT \(PostgresUserRow.columns), e.seq, e.actor_id
                FROM (
                    SELECT actor_id, max(seq) AS seq FROM (
                        SELECT actor_id, seq FROM notification_entries WHERE group_id = g.id AND actor_id <> 0
                        ORDER BY seq DESC, actor_id DESC, object_id DESC LIMIT 10
                    ) AS latest
                    GROUP BY actor_id
                ) AS e
                JOIN users AS u ON u.id = e.actor_id
                ORDER BY e.seq DESC, e.actor_id DESC LIMIT \(NotificationLimits.actorsShown)
            ) AS a ON true
            ORDER BY g.\(order), a.seq DESC, a.actor_id DESC
            """
        let rows = try await pool.query(PostgresQuery(unsafeSQL: sql, binds: selection.binds), logger: logger)
        var groups: [NotificationGroup] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            let id = try row[0].decode(Int64.self)
            var actor: User?
            if try row[15].decode(Int64?.self) != nil { actor = try PostgresUserRow.user(row, from: 15) }
            if let last = groups.last, last.rowID == id {
                if let actor { groups[groups.count - 1].actors.append(actor) }
                continue
            }
            var review: NotificationReview?
            if let reviewID = try row[10].decode(Int64?.self) {
                review = NotificationReview(
                    id: reviewID, placeID: try row[11].decode(Int64.self), text: try row[12].decode(String.self))
            }
            var comment: NotificationComment?
            if let commentID = try row[13].decode(Int64?.self) {
                comment = NotificationComment(id: commentID, text: try row[14].decode(String.self))
            }
            groups.append(
                NotificationGroup(
                    rowID: id, userID: try row[1].decode(Int64.self),
                    type: NotificationType(rawValue: try row[2].decode(String.self)) ?? .moderation,
                    groupKey: try row[3].decode(String.self), latestEventID: try row[4].decode(Int64.self),
                    changedEventID: try row[5].decode(Int64.self), count: try row[6].decode(Int.self),
                    latestAt: Timestamp(milliseconds: try row[7].decode(Int64.self)), actors: actor.map { [$0] } ?? [],
                    review: review, comment: comment, read: try row[8].decode(Bool.self),
                    decision: try row[9].decode(String?.self)))
        }
        return groups
    }
}
