import BurgerMapCore
import Logging
import PostgresNIO

/// Push subscriptions and their deliveries in PostgreSQL, as on SQLite (`AppDatabase+Push.swift`).
///
/// Several instances send pushes from one table: a claim takes due rows that no other claim
/// holds (`FOR UPDATE SKIP LOCKED`: a row another instance is claiming is passed over, not
/// waited for) and leases them; a lease that ran out (its sender died) is due again.
public struct PostgresPushStore: PushStore {
    let pool: PostgresPool
    let logger: Logger

    /// The `push_subscriptions` columns that make a `PushSubscription`, in the order
    /// `subscription(_:from:)` reads them.
    static let subscriptionColumns = "p.id, p.user_id, p.endpoint, p.p256dh, p.auth, p.created_at"

    static func subscription(_ row: PostgresRandomAccessRow, from first: Int = 0) throws -> PushSubscription {
        PushSubscription(
            id: try row[first].decode(Int64.self), userID: try row[first + 1].decode(Int64.self),
            endpoint: try row[first + 2].decode(String.self), p256dh: try row[first + 3].decode(String.self),
            auth: try row[first + 4].decode(String.self),
            createdAt: Timestamp(milliseconds: try row[first + 5].decode(Int64.self)))
    }

    /// The user's row is locked first, so that two saves of one user trim one after the other
    /// and the user keeps `limit` at most. A new endpoint saved twice at once is inserted by
    /// one; the other finds it and updates it, as it would have one after the other.
    public func savePushSubscription(
        user: Int64, endpoint: String, p256dh: String, auth: String, at time: Timestamp, limit: Int
    ) async throws -> (subscription: PushSubscription, created: Bool) {
        let logger = logger
        return try await pool.transaction(logger: logger) { connection in
            try await connection.query("SELECT 1 FROM users WHERE id = \(user) FOR NO KEY UPDATE", logger: logger)
            var saved: (id: Int64, created: Bool)?
            for _ in 0..<3 where saved == nil {
                let existing = try await connection.query(
                    "SELECT id, user_id FROM push_subscriptions WHERE endpoint = \(endpoint) FOR UPDATE",
                    logger: logger)
                var found: (id: Int64, user: Int64)?
                for try await (id, owner) in existing.decode((Int64, Int64).self) { found = (id, owner) }
                if let found {
                    // The browser's keys may have changed; a device that changed hands moves
                    // to its new user, its waiting deliveries (the old user's) dropped.
                    if found.user != user {
                        try await connection.query(
                            "DELETE FROM push_deliveries WHERE subscription_id = \(found.id)", logger: logger)
                    }
                    try await connection.query(
                        """
                        UPDATE push_subscriptions
                        SET user_id = \(user), p256dh = \(p256dh), auth = \(auth), updated_at = \(time.milliseconds)
                        WHERE id = \(found.id)
                        """, logger: logger)
                    saved = (found.id, false)
                } else {
                    let inserted = try await connection.query(
                        """
                        INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, created_at, updated_at)
                        VALUES (\(user), \(endpoint), \(p256dh), \(auth), \(time.milliseconds), \(time.milliseconds))
                        ON CONFLICT (endpoint) DO NOTHING RETURNING id
                        """, logger: logger)
                    for try await id in inserted.decode(Int64.self) { saved = (id, true) }
                }
            }
            guard let saved else { throw StorageError.rowVanished("push_subscriptions") }
            // The user's newest `limit` stay; older ones give way.
            try await connection.query(
                """
                DELETE FROM push_subscriptions WHERE user_id = \(user) AND id NOT IN (
                    SELECT id FROM push_subscriptions WHERE user_id = \(user)
                    ORDER BY updated_at DESC, id DESC LIMIT \(Int64(limit)))
                """, logger: logger)
            let rows = try await connection.query(
                "SELECT \(unescaped: Self.subscriptionColumns) FROM push_subscriptions AS p WHERE p.id = \(saved.id)",
                logger: logger)
            for try await row in rows {
                return (try Self.subscription(row.makeRandomAccess()), saved.created)
            }
            throw StorageError.rowVanished("push_subscriptions")
        }
    }

    /// The user's subscriptions, oldest first.
    public func pushSubscriptions(of user: Int64) async throws -> [PushSubscription] {
        let rows = try await pool.query(
            """
            SELECT \(unescaped: Self.subscriptionColumns) FROM push_subscriptions AS p
            WHERE p.user_id = \(user) ORDER BY p.id
            """, logger: logger)
        var subscriptions: [PushSubscription] = []
        for try await row in rows { subscriptions.append(try Self.subscription(row.makeRandomAccess())) }
        return subscriptions
    }

    /// Deletes the user's subscription `id` (its deliveries go with it); `false` when the user has
    /// none of that id.
    public func deletePushSubscription(id: Int64, of user: Int64) async throws -> Bool {
        try await PostgresRows.exist(
            pool.query(
                "DELETE FROM push_subscriptions WHERE id = \(id) AND user_id = \(user) RETURNING 1", logger: logger))
    }

    /// One statement claims the rows and reads them with their subscriptions; `attempts` is
    /// answered as it was before this claim counted it.
    public func claimPushDeliveries(at time: Timestamp, lease: Duration, limit: Int) async throws -> [PushDelivery] {
        let now = time.milliseconds
        let rows = try await pool.query(
            """
            WITH claimed AS (
                UPDATE push_deliveries SET claimed_until = \(now + lease.milliseconds), attempts = attempts + 1
                WHERE id IN (
                    SELECT id FROM push_deliveries
                    WHERE due_at <= \(now) AND (claimed_until IS NULL OR claimed_until <= \(now))
                    ORDER BY due_at, id LIMIT \(Int64(limit))
                    FOR UPDATE SKIP LOCKED)
                RETURNING id, subscription_id, group_id, notification_id, attempts - 1 AS attempts, due_at
            )
            SELECT d.id, d.group_id, d.notification_id, d.attempts, coalesce(s.language, 'en'),
                \(unescaped: Self.subscriptionColumns)
            FROM claimed AS d
            JOIN push_subscriptions AS p ON p.id = d.subscription_id
            LEFT JOIN notification_settings AS s ON s.user_id = p.user_id
            ORDER BY d.due_at, d.id
            """, logger: logger)
        var deliveries: [PushDelivery] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            deliveries.append(
                PushDelivery(
                    id: try row[0].decode(Int64.self), subscription: try Self.subscription(row, from: 5),
                    groupRowID: try row[1].decode(Int64.self), notificationID: try row[2].decode(Int64.self),
                    attempts: try row[3].decode(Int.self),
                    language: Language(rawValue: try row[4].decode(String.self)) ?? .english))
        }
        return deliveries
    }

    /// Settles a claimed delivery: forgotten, due again later, or gone with its subscription.
    public func finishPushDelivery(_ delivery: PushDelivery, _ outcome: PushDeliveryOutcome) async throws {
        switch outcome {
        case .done:
            try await pool.query("DELETE FROM push_deliveries WHERE id = \(delivery.id)", logger: logger)
        case .retry(let time):
            try await pool.query(
                """
                UPDATE push_deliveries SET due_at = \(time.milliseconds), claimed_until = NULL
                WHERE id = \(delivery.id)
                """, logger: logger)
        case .subscriptionGone:
            try await pool.query(
                "DELETE FROM push_subscriptions WHERE id = \(delivery.subscription.id)", logger: logger)
        }
    }

    /// When the next delivery falls due (a claimed one when its lease runs out), if any waits.
    public func nextPushDeliveryDue() async throws -> Timestamp? {
        let rows = try await pool.query(
            "SELECT min(greatest(due_at, coalesce(claimed_until, 0))) FROM push_deliveries", logger: logger)
        for try await due in rows.decode(Int64?.self) { return due.map { Timestamp(milliseconds: $0) } }
        return nil
    }
}
