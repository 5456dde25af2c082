import BurgerMapCore
import Foundation
import GRDB

/// Reading notification groups, settings and stream tickets.
extension AppDatabase {
    static let groupColumns = """
        id, user_id, type, group_key, latest_event_id, changed_event_id, count, latest_at, review_id, comment_id,
        decision, read
        """

    public func notifications(for user: Int64, filter: NotificationFilter, before: Int64?, limit: Int) async throws
        -> [NotificationGroup]
    {
        let types = NotificationType.allCases.filter { filter.mask & $0.bit != 0 }.map { "'\($0.rawValue)'" }
        let sql = """
            SELECT \(Self.groupColumns) FROM notification_groups
            WHERE user_id = ? AND count > 0 AND latest_event_id < ?\(filter.unreadOnly ? " AND read = 0" : "")
              AND type IN (\(types.joined(separator: ", ")))
            ORDER BY latest_event_id DESC LIMIT ?
            """
        return try await measured("notifications") {
            try await pool.read { db in
                try Row.fetchAll(db, sql: sql, arguments: [user, before ?? Int64.max, limit]).map {
                    try Self.group($0, in: db)
                }
            }
        }
    }

    public func unreadNotificationCount(for user: Int64, cap: Int) async throws -> Int {
        try await measured("unread_notifications") {
            try await pool.read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM (
                            SELECT 1 FROM notification_groups WHERE user_id = ? AND count > 0 AND read = 0 LIMIT ?
                        )
                        """, arguments: [user, cap]) ?? 0
            }
        }
    }

    public func markNotificationsRead(for user: Int64, _ selection: NotificationSelection) async throws {
        try await measured("mark_notifications_read") {
            try await pool.write { db in
                switch selection {
                case .upTo(let id):
                    try db.execute(
                        sql: """
                            UPDATE notification_groups SET read = 1
                            WHERE user_id = ? AND count > 0 AND read = 0 AND latest_event_id <= ?
                            """, arguments: [user, id])
                case .groupKeys(let keys):
                    guard !keys.isEmpty else { return }
                    let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
                    try db.execute(
                        sql: """
                            UPDATE notification_groups SET read = 1
                            WHERE user_id = ? AND count > 0 AND read = 0 AND group_key IN (\(marks))
                            """, arguments: StatementArguments([user] + keys.map { $0 as any DatabaseValueConvertible })
                    )
                }
            }
        }
    }

    public func changedNotifications(for user: Int64, after id: Int64, limit: Int) async throws
        -> [NotificationGroup]
    {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.groupColumns) FROM notification_groups
                    WHERE user_id = ? AND changed_event_id > ? ORDER BY changed_event_id LIMIT ?
                    """, arguments: [user, id, limit]
            ).map { try Self.group($0, in: db) }
        }
    }

    public func notificationGroup(rowID: Int64) async throws -> NotificationGroup? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.groupColumns) FROM notification_groups WHERE id = ?", arguments: [rowID]
            ).map { try Self.group($0, in: db) }
        }
    }

    public func pruneEmptiedNotifications(changedBefore id: Int64, limit: Int) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    DELETE FROM notification_groups WHERE id IN (
                        SELECT id FROM notification_groups WHERE count = 0 AND changed_event_id < ? LIMIT ?)
                    """, arguments: [id, limit])
            return db.changesCount
        }
    }

    /// A group row with its latest actors, its review and its comment (hidden ones are left out).
    static func group(_ row: Row, in db: Database) throws -> NotificationGroup {
        let id: Int64 = row["id"]
        // The latest entries' actors, each once: ten entries hold three actors but when one
        // person wrote many comments in a row, and the read stays small for a group of any size.
        let actorIDs = try Int64.fetchAll(
            db,
            sql:
                "SELECT actor_id FROM notification_entries WHERE group_id = ? AND actor_id <> 0 ORDER BY seq DESC LIMIT 10",
            arguments: [id])
        var actors: [User] = []
        for actor in actorIDs where !actors.contains(where: { $0.id == actor }) {
            guard actors.count < NotificationLimits.actorsShown else { break }
            if let user = try Self.user(db, id: actor) { actors.append(user) }
        }
        let review = try (row["review_id"] as Int64?).flatMap { reviewID in
            try Row.fetchOne(db, sql: "SELECT id, place_id, text FROM reviews WHERE id = ?", arguments: [reviewID])
                .map { NotificationReview(id: $0[0], placeID: $0[1], text: $0[2]) }
        }
        let comment = try (row["comment_id"] as Int64?).flatMap { commentID in
            try Row.fetchOne(db, sql: "SELECT id, text FROM comments WHERE id = ?", arguments: [commentID])
                .map { NotificationComment(id: $0[0], text: $0[1]) }
        }
        return NotificationGroup(
            rowID: id, userID: row["user_id"], type: NotificationType(rawValue: row["type"]) ?? .moderation,
            groupKey: row["group_key"], latestEventID: row["latest_event_id"], changedEventID: row["changed_event_id"],
            count: row["count"], latestAt: Timestamp(milliseconds: row["latest_at"]), actors: actors, review: review,
            comment: comment, read: row["read"], decision: row["decision"])
    }

    public func notificationSettings(for user: Int64) async throws -> NotificationSettings {
        try await pool.read { db in try Self.settings(db, user: user) }
    }

    static func settings(_ db: Database, user: Int64) throws -> NotificationSettings {
        try Row.fetchOne(
            db, sql: "SELECT list_mask, push_mask FROM notification_settings WHERE user_id = ?", arguments: [user]
        ).map { NotificationSettings(listMask: $0[0], pushMask: $0[1]) } ?? NotificationSettings()
    }

    public func updateNotificationSettings(
        for user: Int64, list: [NotificationType: Bool], push: [NotificationType: Bool]
    ) async throws -> NotificationSettings {
        try await pool.write { db in
            let settings = try Self.settings(db, user: user).changing(list: list, push: push)
            try db.execute(
                sql: """
                    INSERT INTO notification_settings (user_id, list_mask, push_mask) VALUES (?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET list_mask = excluded.list_mask, push_mask = excluded.push_mask
                    """, arguments: [user, settings.listMask, settings.pushMask])
            return settings
        }
    }

    public func setNotificationLanguage(_ language: Language, for user: Int64) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO notification_settings (user_id, list_mask, push_mask, language) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET language = excluded.language
                    WHERE language IS NOT excluded.language
                    """,
                arguments: [user, NotificationType.defaultMask, NotificationType.defaultMask, language.rawValue])
        }
    }

    public func createStreamTicket(hash: [UInt8], user: Int64, expiresAt: Timestamp, streamEndsAt: Timestamp)
        async throws
    {
        try await pool.write { db in
            // Expired tickets go a few at a time, so the table holds only the last minute's.
            try db.execute(
                sql: """
                    DELETE FROM stream_tickets WHERE hash IN (SELECT hash FROM stream_tickets WHERE expires_at < ? LIMIT 16)
                    """, arguments: [Timestamp.now().milliseconds])
            try db.execute(
                sql: "INSERT INTO stream_tickets (hash, user_id, expires_at, stream_ends_at) VALUES (?, ?, ?, ?)",
                arguments: [Data(hash), user, expiresAt.milliseconds, streamEndsAt.milliseconds])
        }
    }

    public func consumeStreamTicket(hash: [UInt8], at time: Timestamp) async throws
        -> (user: Int64, streamEndsAt: Timestamp)?
    {
        try await pool.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "DELETE FROM stream_tickets WHERE hash = ? RETURNING user_id, expires_at, stream_ends_at",
                    arguments: [Data(hash)])
            else { return nil }
            let expiresAt: Int64 = row[1]
            return expiresAt > time.milliseconds ? (row[0], Timestamp(milliseconds: row[2])) : nil
        }
    }
}
