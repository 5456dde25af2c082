import BurgerMapCore
import GRDB

/// Push subscriptions and their deliveries (see `PushStore`).
extension AppDatabase: PushStore {
    static let subscriptionColumns = "id, user_id, endpoint, p256dh, auth, created_at"

    static func subscription(_ row: Row) -> PushSubscription {
        PushSubscription(
            id: row["id"], userID: row["user_id"], endpoint: row["endpoint"], p256dh: row["p256dh"],
            auth: row["auth"], createdAt: Timestamp(milliseconds: row["created_at"]))
    }

    public func savePushSubscription(
        user: Int64, endpoint: String, p256dh: String, auth: String, at time: Timestamp, limit: Int
    ) async throws -> (subscription: PushSubscription, created: Bool) {
        try await measured("save_push_subscription") {
            try await pool.write { db in
                let existing = try Int64.fetchOne(
                    db, sql: "SELECT id FROM push_subscriptions WHERE endpoint = ?", arguments: [endpoint])
                if let existing {
                    // The browser's keys may have changed; a device that changed hands moves
                    // to its new user, its waiting deliveries (the old user's) dropped.
                    let previous = try Int64.fetchOne(
                        db, sql: "SELECT user_id FROM push_subscriptions WHERE id = ?", arguments: [existing])
                    if previous != user {
                        try db.execute(
                            sql: "DELETE FROM push_deliveries WHERE subscription_id = ?", arguments: [existing])
                    }
                    try db.execute(
                        sql: """
                            UPDATE push_subscriptions SET user_id = ?, p256dh = ?, auth = ?, updated_at = ? WHERE id = ?
                            """, arguments: [user, p256dh, auth, time.milliseconds, existing])
                } else {
                    try db.execute(
                        sql: """
                            INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, created_at, updated_at)
                            VALUES (?, ?, ?, ?, ?, ?)
                            """, arguments: [user, endpoint, p256dh, auth, time.milliseconds, time.milliseconds])
                }
                let id = existing ?? db.lastInsertedRowID
                // The user's newest `limit` stay; older ones give way.
                try db.execute(
                    sql: """
                        DELETE FROM push_subscriptions WHERE user_id = ?1 AND id NOT IN (
                            SELECT id FROM push_subscriptions WHERE user_id = ?1 ORDER BY updated_at DESC, id DESC LIMIT ?2)
                        """, arguments: [user, limit])
                let row = try Row.fetchOne(
                    db, sql: "SELECT \(Self.subscriptionColumns) FROM push_subscriptions WHERE id = ?", arguments: [id])
                guard let row else { throw StorageError.rowVanished("push_subscriptions") }
                return (Self.subscription(row), existing == nil)
            }
        }
    }

    public func pushSubscriptions(of user: Int64) async throws -> [PushSubscription] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.subscriptionColumns) FROM push_subscriptions WHERE user_id = ? ORDER BY id",
                arguments: [user]
            ).map(Self.subscription)
        }
    }

    public func deletePushSubscription(id: Int64, of user: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM push_subscriptions WHERE id = ? AND user_id = ?", arguments: [id, user])
            return db.changesCount == 1
        }
    }

    public func claimPushDeliveries(at time: Timestamp, lease: Duration, limit: Int) async throws -> [PushDelivery] {
        try await pool.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id AS delivery_id, d.group_id, d.notification_id, d.attempts,
                        coalesce(s.language, 'en') AS language, \(Self.qualified(Self.subscriptionColumns, by: "p"))
                    FROM push_deliveries AS d
                    JOIN push_subscriptions AS p ON p.id = d.subscription_id
                    LEFT JOIN notification_settings AS s ON s.user_id = p.user_id
                    WHERE d.due_at <= ?1 AND (d.claimed_until IS NULL OR d.claimed_until <= ?1)
                    ORDER BY d.due_at, d.id LIMIT ?2
                    """, arguments: [time.milliseconds, limit])
            let until = time.milliseconds + lease.milliseconds
            for row in rows {
                try db.execute(
                    sql: "UPDATE push_deliveries SET claimed_until = ?, attempts = attempts + 1 WHERE id = ?",
                    arguments: [until, row["delivery_id"]])
            }
            return rows.map { row in
                PushDelivery(
                    id: row["delivery_id"], subscription: Self.subscription(row), groupRowID: row["group_id"],
                    notificationID: row["notification_id"], attempts: row["attempts"],
                    language: Language(rawValue: row["language"]) ?? .english)
            }
        }
    }

    public func finishPushDelivery(_ delivery: PushDelivery, _ outcome: PushDeliveryOutcome) async throws {
        try await pool.write { db in
            switch outcome {
            case .done:
                try db.execute(sql: "DELETE FROM push_deliveries WHERE id = ?", arguments: [delivery.id])
            case .retry(let time):
                try db.execute(
                    sql: "UPDATE push_deliveries SET due_at = ?, claimed_until = NULL WHERE id = ?",
                    arguments: [time.milliseconds, delivery.id])
            case .subscriptionGone:
                try db.execute(
                    sql: "DELETE FROM push_subscriptions WHERE id = ?", arguments: [delivery.subscription.id])
            }
        }
    }

    public func nextPushDeliveryDue() async throws -> Timestamp? {
        try await pool.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT min(max(due_at, coalesce(claimed_until, 0))) FROM push_deliveries"
            ).map { Timestamp(milliseconds: $0) }
        }
    }
}
