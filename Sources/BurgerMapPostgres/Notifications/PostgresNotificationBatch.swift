import BurgerMapCore
import Logging
import PostgresNIO

/// One batch of the notification worker, in the transaction of
/// `PostgresNotificationStore.applyNotifications`: SQLite's `AppDatabase.apply` and `settle`
/// (AppDatabase+NotificationApply.swift), change by change, with the groups the batch touched
/// settled once at its end.
///
/// Where SQLite deletes entries one by one and recounts each group, one statement here deletes
/// a change's entries and one recounts its groups (a round trip costs more than the work).
/// Groups are touched in id order: the order SQLite's plans visit them in (its indexes end in
/// the group's id), which decides the order of their events.
struct PostgresNotificationBatch {
    let connection: PostgresConnection
    let logger: Logger
    /// The groups touched, in the order first touched, and whether an entry joined each.
    private var touched: [(group: Int64, added: Bool)] = []
    private var index: [Int64: Int] = [:]
    private var sequence: Int64 = 0

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// One change's rows.
    mutating func apply(_ change: NotificationChange) async throws {
        switch change {
        case .add(let entry):
            try await add(entry)
        case .reviewByFollowed(let author, let review, let time):
            let rows = try await connection.query(
                """
                SELECT f.follower_id FROM follows AS f JOIN notification_settings AS s ON s.user_id = f.follower_id
                WHERE f.followee_id = \(author) AND (s.list_mask & \(NotificationType.reviewByFollowed.bit)) <> 0
                ORDER BY f.follower_id
                """, logger: logger)
            var followers: [Int64] = []
            for try await follower in rows.decode(Int64.self) { followers.append(follower) }
            for follower in followers {
                try await add(
                    NotificationEntry(
                        recipient: follower, type: .reviewByFollowed, groupKey: "review-\(review)", actor: author,
                        object: review, review: review, time: time))
            }
        case .retract(let recipient, let type, let actor, let object):
            var groups: [Int64] = []
            try await connection.forEachRow(
                Self.retractQuery(recipient: recipient, type: type, actor: actor, object: object),
                preparedAs: RetractText.self, logger: logger
            ) { row in groups.append(try row.decode(Int64.self)) }
            for group in groups.sorted() { touch(group, added: false) }
        case .forgetReview(let review):
            // Every entry of the review's groups; the CTE's delete runs though nothing reads it.
            try await forget(
                """
                WITH groups AS (
                    SELECT id FROM notification_groups
                    WHERE review_id = \(review) AND count > 0 AND type IN ('like', 'comment', 'review_by_followed')
                ), gone AS (
                    DELETE FROM notification_entries WHERE group_id IN (SELECT id FROM groups)
                )
                SELECT id FROM groups
                """)
        case .forgetComment(let comment):
            try await forget(
                """
                DELETE FROM notification_entries AS e USING notification_groups AS g
                WHERE g.id = e.group_id AND e.object_id = \(comment) AND g.type = 'comment'
                RETURNING e.group_id
                """)
        case .forgetPair(let first, let second):
            for (recipient, actor) in [(first, second), (second, first)] {
                try await forget(
                    """
                    DELETE FROM notification_entries AS e USING notification_groups AS g
                    WHERE g.id = e.group_id AND e.actor_id = \(actor) AND g.user_id = \(recipient)
                    RETURNING e.group_id
                    """)
            }
        case .forgetActor(let actor):
            try await forget("DELETE FROM notification_entries WHERE actor_id = \(actor) RETURNING group_id")
        }
    }

    /// Runs `query`, which deletes entries and answers their groups, and recounts those groups.
    private mutating func forget(_ query: PostgresQuery) async throws {
        var groups: Set<Int64> = []
        for try await group in try await connection.query(query, logger: logger).decode(Int64.self) {
            groups.insert(group)
        }
        guard !groups.isEmpty else { return }
        let ordered = groups.sorted()
        try await recount(ordered)
        for group in ordered { touch(group, added: false) }
    }

    /// An entry, when the recipient lists the type, no block stands between the two and the
    /// content is still there and visible; it joins the recipient's open group of its key, or
    /// opens one.
    private mutating func add(_ entry: NotificationEntry) async throws {
        var joined: Int64?
        try await connection.forEachRow(
            Self.addQuery(entry, seq: nextSequence(entry.time)), preparedAs: AddText.self, logger: logger
        ) { row in joined = try row.decode(Int64.self) }
        if let joined { touch(joined, added: true) }
    }

    // An entry and an unlike are one prepared statement each: a burst of likes is applied in
    // one batch, and with two statements per entry, each planned anew, the worker cost the like
    // throughput a sixth (scripts/bench-likes, PostgreSQL).
    enum AddText: PreparedText {
        static let name = "burgermap_notification_add"
        static let text = addQuery(representative, seq: 0)
    }
    enum RetractText: PreparedText {
        static let name = "burgermap_notification_retract"
        static let text = retractQuery(recipient: 0, type: .like, actor: 0, object: 0)
    }
    static let representative = NotificationEntry(
        recipient: 0, type: .like, groupKey: "", actor: 0, object: 0, review: 0, comment: 0, decision: "",
        time: Timestamp(milliseconds: 0))

    /// The entry, when the recipient lists the type, no block stands between the two and the
    /// content is there and visible: into the recipient's open group of its key (counted, unless
    /// it was there already), or into a new group that holds it at once (count 1, its time and
    /// comment the entry's; a statement cannot update a row it inserts). Answers the group.
    static func addQuery(_ entry: NotificationEntry, seq: Int64) -> PostgresQuery {
        """
        WITH checked AS (
            SELECT (coalesce(
                        (SELECT list_mask FROM notification_settings WHERE user_id = \(entry.recipient)),
                        \(NotificationType.defaultMask)) & \(entry.type.bit)) <> 0
                AND EXISTS (SELECT 1 FROM users WHERE id = \(entry.recipient))
                AND (\(entry.actor)::bigint IS NULL OR (
                    EXISTS (SELECT 1 FROM users WHERE id = \(entry.actor)::bigint)
                    AND NOT EXISTS (
                        SELECT 1 FROM blocks
                        WHERE (blocker_id = \(entry.recipient) AND blocked_id = \(entry.actor)::bigint)
                            OR (blocker_id = \(entry.actor)::bigint AND blocked_id = \(entry.recipient)))))
                AND (\(entry.type == .moderation) OR (
                    (\(entry.review)::bigint IS NULL
                        OR EXISTS (SELECT 1 FROM reviews WHERE id = \(entry.review)::bigint AND hidden_at IS NULL))
                    AND (\(entry.comment)::bigint IS NULL
                        OR EXISTS (
                            SELECT 1 FROM comments WHERE id = \(entry.comment)::bigint AND hidden_at IS NULL))))
                    AS allowed,
                (SELECT id FROM notification_groups
                 WHERE user_id = \(entry.recipient) AND group_key = \(entry.groupKey) AND NOT read AND count > 0)
                    AS open
        ), opened AS (
            INSERT INTO notification_groups (
                user_id, type, group_key, latest_event_id, changed_event_id, count, latest_at, review_id,
                comment_id, decision)
            SELECT \(entry.recipient), \(entry.type.rawValue), \(entry.groupKey), 0, 0, 1,
                \(entry.time.milliseconds), \(entry.review)::bigint, \(entry.comment)::bigint,
                \(entry.decision)::text
            FROM checked WHERE allowed AND open IS NULL
            RETURNING id
        ), target AS (
            SELECT open AS id FROM checked WHERE allowed AND open IS NOT NULL
            UNION ALL SELECT id FROM opened
        ), entry AS (
            INSERT INTO notification_entries (group_id, actor_id, object_id, seq)
            SELECT id, \(entry.actor ?? 0), \(entry.object), \(seq) FROM target
            ON CONFLICT DO NOTHING RETURNING group_id
        ), counted AS (
            UPDATE notification_groups
            SET count = count + 1, latest_at = \(entry.time.milliseconds),
                comment_id = coalesce(\(entry.comment)::bigint, comment_id)
            WHERE id IN (SELECT group_id FROM entry) AND id NOT IN (SELECT id FROM opened)
        )
        SELECT group_id FROM entry
        """
    }

    /// Takes the actor's entry on `object` out of the recipient's open groups of `type` and
    /// counts them down; answers the groups.
    static func retractQuery(recipient: Int64, type: NotificationType, actor: Int64, object: Int64) -> PostgresQuery {
        """
        WITH gone AS (
            DELETE FROM notification_entries AS e USING notification_groups AS g
            WHERE g.id = e.group_id AND e.actor_id = \(actor) AND e.object_id = \(object)
                AND g.user_id = \(recipient) AND g.type = \(type.rawValue) AND NOT g.read AND g.count > 0
            RETURNING e.group_id
        )
        UPDATE notification_groups AS g SET count = g.count - d.entries
        FROM (SELECT group_id, count(*) AS entries FROM gone GROUP BY group_id) AS d
        WHERE g.id = d.group_id
        RETURNING g.id
        """
    }

    /// The groups' counts from their entries, and a comment group's latest comment (ties of
    /// `seq` broken as SQLite's index breaks them: by actor, then object).
    private func recount(_ groups: [Int64]) async throws {
        try await connection.query(
            """
            UPDATE notification_groups AS g SET
                count = (SELECT count(*) FROM notification_entries WHERE group_id = g.id),
                comment_id = CASE WHEN g.type = 'comment' THEN (
                    SELECT object_id FROM notification_entries WHERE group_id = g.id
                    ORDER BY seq DESC, actor_id DESC, object_id DESC LIMIT 1
                ) ELSE g.comment_id END
            WHERE g.id = ANY(\(groups))
            """, logger: logger)
    }

    /// Each touched group's `notification.updated` event (through the event store, so that
    /// readers on every instance wait for this transaction), its ids, and the pushes of
    /// additions.
    mutating func settle() async throws {
        guard !touched.isEmpty else { return }
        let rows = try await connection.query(
            "SELECT id, user_id, type, count FROM notification_groups WHERE id = ANY(\(touched.map(\.group)))",
            logger: logger)
        var found: [Int64: (user: Int64, type: String, count: Int)] = [:]
        for try await (id, user, type, count) in rows.decode((Int64, Int64, String, Int).self) {
            found[id] = (user, type, count)
        }
        let now = Timestamp.now()
        var settled: (groups: [Int64], events: [Int64], added: [Bool]) = ([], [], [])
        var pushes: (groups: [Int64], events: [Int64], users: [Int64], bits: [Int]) = ([], [], [], [])
        for (group, added) in touched {
            guard let row = found[group] else { continue }
            let eventID = try await PostgresEventStore.record(
                NotificationRules.groupUpdated(group, recipient: row.user),
                at: now, on: connection, logger: logger)
            settled.groups.append(group)
            settled.events.append(eventID)
            settled.added.append(added)
            guard added, row.count > 0, let type = NotificationType(rawValue: row.type) else { continue }
            pushes.groups.append(group)
            pushes.events.append(eventID)
            pushes.users.append(row.user)
            pushes.bits.append(type.bit)
        }
        guard !settled.groups.isEmpty else { return }
        try await connection.query(
            """
            UPDATE notification_groups AS g SET changed_event_id = u.event,
                latest_event_id = CASE WHEN u.added THEN u.event ELSE g.latest_event_id END
            FROM unnest(\(settled.groups)::bigint[], \(settled.events)::bigint[], \(settled.added)::boolean[])
                AS u (id, event, added)
            WHERE g.id = u.id
            """, logger: logger)
        guard !pushes.groups.isEmpty else { return }
        // A delivery per subscription of a recipient who has the type's push on, in the order
        // SQLite makes them: group by group, each recipient's subscriptions in its index's order.
        try await connection.query(
            """
            INSERT INTO push_deliveries (subscription_id, group_id, notification_id, due_at)
            SELECT p.id, u.id, u.event, \(now.milliseconds)
            FROM unnest(\(pushes.groups)::bigint[], \(pushes.events)::bigint[], \(pushes.users)::bigint[],
                    \(pushes.bits)::bigint[]) WITH ORDINALITY AS u (id, event, user_id, bit, position)
            JOIN push_subscriptions AS p ON p.user_id = u.user_id
            WHERE (coalesce((SELECT push_mask FROM notification_settings WHERE user_id = u.user_id),
                    \(NotificationType.defaultMask)) & u.bit) <> 0
            ORDER BY u.position, p.updated_at, p.id
            """, logger: logger)
    }

    private mutating func touch(_ group: Int64, added: Bool) {
        if let position = index[group] {
            touched[position].added = touched[position].added || added
        } else {
            index[group] = touched.count
            touched.append((group, added))
        }
    }

    /// An entry's place among a group's: its time in milliseconds, scaled so that entries of
    /// one batch at the same millisecond keep their order (SQLite's `NotificationBatch`).
    private mutating func nextSequence(_ time: Timestamp) -> Int64 {
        sequence = max(sequence + 1, time.milliseconds * 1_000)
        return sequence
    }
}
