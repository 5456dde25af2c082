import BurgerMapCore
import GRDB

/// The notification worker's writes: one transaction per batch of events (see
/// `NotificationStore.applyNotifications`).
extension AppDatabase: NotificationStore {
    public func notificationProgress() async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT last_event_id FROM notification_progress WHERE id = 1") ?? 0
        }
    }

    public func applyNotifications(_ changes: [NotificationChange], after previous: Int64, through last: Int64)
        async throws -> Bool
    {
        try await measured("apply_notifications") {
            try await pool.write { db in
                try db.execute(
                    sql: "UPDATE notification_progress SET last_event_id = ? WHERE id = 1 AND last_event_id = ?",
                    arguments: [last, previous])
                guard db.changesCount == 1 else { return false }
                var batch = NotificationBatch()
                for change in changes { try Self.apply(change, to: &batch, in: db) }
                try self.settle(batch, in: db)
                return true
            }
        }
    }

    /// One change's rows; the groups it touched are settled once for the whole batch.
    static func apply(_ change: NotificationChange, to batch: inout NotificationBatch, in db: Database) throws {
        switch change {
        case .add(let entry):
            try add(entry, to: &batch, in: db)
        case .reviewByFollowed(let author, let review, let time):
            let followers = try Int64.fetchAll(
                db,
                sql: """
                    SELECT f.follower_id FROM follows AS f JOIN notification_settings AS s ON s.user_id = f.follower_id
                    WHERE f.followee_id = ? AND (s.list_mask & ?) != 0 ORDER BY f.follower_id
                    """, arguments: [author, NotificationType.reviewByFollowed.bit])
            for follower in followers {
                try add(
                    NotificationEntry(
                        recipient: follower, type: .reviewByFollowed, groupKey: "review-\(review)", actor: author,
                        object: review, review: review, time: time), to: &batch, in: db)
            }
        case .retract(let recipient, let type, let actor, let object):
            let groups = try Int64.fetchAll(
                db,
                sql: """
                    SELECT g.id FROM notification_entries AS e JOIN notification_groups AS g ON g.id = e.group_id
                    WHERE e.actor_id = ? AND e.object_id = ? AND g.user_id = ? AND g.type = ? AND g.read = 0
                      AND g.count > 0
                    """, arguments: [actor, object, recipient, type.rawValue])
            for group in groups {
                try db.execute(
                    sql: "DELETE FROM notification_entries WHERE group_id = ? AND actor_id = ? AND object_id = ?",
                    arguments: [group, actor, object])
                try recount(group, in: db)
                batch.touch(group, added: false)
            }
        case .forgetReview(let review):
            let groups = try Int64.fetchAll(
                db,
                sql: """
                    SELECT id FROM notification_groups
                    WHERE review_id = ? AND count > 0 AND type IN ('like', 'comment', 'review_by_followed')
                    """, arguments: [review])
            for group in groups {
                try db.execute(sql: "DELETE FROM notification_entries WHERE group_id = ?", arguments: [group])
                try recount(group, in: db)
                batch.touch(group, added: false)
            }
        case .forgetComment(let comment):
            try forgetEntries(
                sql: """
                    SELECT e.group_id, e.actor_id, e.object_id FROM notification_entries AS e
                    JOIN notification_groups AS g ON g.id = e.group_id WHERE e.object_id = ? AND g.type = 'comment'
                    """, [comment], batch: &batch, in: db)
        case .forgetPair(let first, let second):
            for (recipient, actor) in [(first, second), (second, first)] {
                try forgetEntries(
                    sql: """
                        SELECT e.group_id, e.actor_id, e.object_id FROM notification_entries AS e
                        JOIN notification_groups AS g ON g.id = e.group_id WHERE e.actor_id = ? AND g.user_id = ?
                        """, [actor, recipient], batch: &batch, in: db)
            }
        case .forgetActor(let actor):
            try forgetEntries(
                sql: "SELECT group_id, actor_id, object_id FROM notification_entries WHERE actor_id = ?", [actor],
                batch: &batch, in: db)
        }
    }

    /// Deletes the entries `sql` selects (group, actor, object) and recounts their groups.
    private static func forgetEntries(
        sql: String, _ arguments: StatementArguments, batch: inout NotificationBatch, in db: Database
    ) throws {
        let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
        var groups: [Int64] = []
        for row in rows {
            let group: Int64 = row[0]
            try db.execute(
                sql: "DELETE FROM notification_entries WHERE group_id = ? AND actor_id = ? AND object_id = ?",
                arguments: [group, row[1], row[2]])
            if !groups.contains(group) { groups.append(group) }
        }
        for group in groups {
            try recount(group, in: db)
            batch.touch(group, added: false)
        }
    }

    /// An entry, when the recipient lists the type, no block stands between the two and the
    /// content is still there and visible.
    private static func add(_ entry: NotificationEntry, to batch: inout NotificationBatch, in db: Database) throws {
        // Every check in one statement: a burst of likes is applied in one transaction, and
        // each statement of each entry counts against the writes it shares SQLite with.
        let checkedContent = entry.type != .moderation
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT coalesce((SELECT list_mask FROM notification_settings WHERE user_id = ?1), ?2),
                            EXISTS (SELECT 1 FROM users WHERE id = ?1),
                            ?3 IS NULL OR EXISTS (SELECT 1 FROM users WHERE id = ?3),
                            ?3 IS NOT NULL AND EXISTS (
                                SELECT 1 FROM blocks
                                WHERE (blocker_id = ?1 AND blocked_id = ?3) OR (blocker_id = ?3 AND blocked_id = ?1)),
                            ?4 IS NULL OR EXISTS (SELECT 1 FROM reviews WHERE id = ?4 AND hidden_at IS NULL),
                            ?5 IS NULL OR EXISTS (SELECT 1 FROM comments WHERE id = ?5 AND hidden_at IS NULL),
                            (SELECT id FROM notification_groups
                             WHERE user_id = ?1 AND group_key = ?6 AND read = 0 AND count > 0)
                        """),
                arguments: [
                    entry.recipient, NotificationType.defaultMask, entry.actor, checkedContent ? entry.review : nil,
                    checkedContent ? entry.comment : nil, entry.groupKey,
                ])
        else { return }
        let mask: Int = row[0]
        let (recipientExists, actorExists, blocked): (Bool, Bool, Bool) = (row[1], row[2], row[3])
        let (reviewVisible, commentVisible): (Bool, Bool) = (row[4], row[5])
        guard mask & entry.type.bit != 0, recipientExists, actorExists, !blocked, reviewVisible, commentVisible else {
            return
        }
        let open: Int64? = row[6]
        let group: Int64
        if let open {
            group = open
        } else {
            try db.execute(
                sql: """
                    INSERT INTO notification_groups
                        (user_id, type, group_key, latest_event_id, changed_event_id, count, latest_at, review_id,
                         comment_id, decision)
                    VALUES (?, ?, ?, 0, 0, 0, ?, ?, ?, ?)
                    """,
                arguments: [
                    entry.recipient, entry.type.rawValue, entry.groupKey, entry.time.milliseconds, entry.review,
                    entry.comment, entry.decision,
                ])
            group = db.lastInsertedRowID
        }
        try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO notification_entries (group_id, actor_id, object_id, seq) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [group, entry.actor ?? 0, entry.object, batch.nextSequence(entry.time)])
        guard db.changesCount == 1 else { return }
        try db.cachedStatement(
            sql: """
                UPDATE notification_groups SET count = count + 1, latest_at = ?, comment_id = coalesce(?, comment_id)
                WHERE id = ?
                """
        ).execute(arguments: [entry.time.milliseconds, entry.comment, group])
        batch.touch(group, added: true)
    }

    /// The group's count from its entries, and a comment group's latest comment.
    private static func recount(_ group: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                UPDATE notification_groups SET
                    count = (SELECT count(*) FROM notification_entries WHERE group_id = ?1),
                    comment_id = CASE WHEN type = 'comment' THEN (
                        SELECT object_id FROM notification_entries WHERE group_id = ?1 ORDER BY seq DESC LIMIT 1
                    ) ELSE comment_id END
                WHERE id = ?1
                """, arguments: [group])
    }

    /// Each touched group's `notification.updated` event, its ids, and the pushes of additions.
    private func settle(_ batch: NotificationBatch, in db: Database) throws {
        let now = Timestamp.now()
        for (group, added) in batch.touched {
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT user_id, type, count FROM notification_groups WHERE id = ?", arguments: [group])
            else { continue }
            let recipient: Int64 = row[0]
            try recordEvent(
                NotificationRules.groupUpdated(group, recipient: recipient),
                at: now, in: db)
            let eventID = db.lastInsertedRowID
            try db.execute(
                sql: """
                    UPDATE notification_groups SET changed_event_id = ?1,
                        latest_event_id = CASE WHEN ?2 THEN ?1 ELSE latest_event_id END
                    WHERE id = ?3
                    """, arguments: [eventID, added, group])
            let count: Int = row[2]
            guard added, count > 0, let type = NotificationType(rawValue: row[1]) else { continue }
            try db.execute(
                sql: """
                    INSERT INTO push_deliveries (subscription_id, group_id, notification_id, due_at)
                    SELECT p.id, ?, ?, ? FROM push_subscriptions AS p
                    WHERE p.user_id = ?
                      AND (coalesce((SELECT push_mask FROM notification_settings WHERE user_id = ?), ?) & ?) != 0
                    """,
                arguments: [
                    group, eventID, now.milliseconds, recipient, recipient, NotificationType.defaultMask, type.bit,
                ])
        }
    }
}

/// The groups one batch touched, in the order first touched, and whether an entry joined each.
struct NotificationBatch {
    private(set) var touched: [(group: Int64, added: Bool)] = []
    private var index: [Int64: Int] = [:]
    private var sequence: Int64 = 0

    mutating func touch(_ group: Int64, added: Bool) {
        if let position = index[group] {
            touched[position].added = touched[position].added || added
        } else {
            index[group] = touched.count
            touched.append((group, added))
        }
    }

    /// An entry's place among a group's: its time in milliseconds, scaled so that entries of
    /// one batch at the same millisecond keep their order.
    mutating func nextSequence(_ time: Timestamp) -> Int64 {
        sequence = max(sequence + 1, time.milliseconds * 1_000)
        return sequence
    }
}
