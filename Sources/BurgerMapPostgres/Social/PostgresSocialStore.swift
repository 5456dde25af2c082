import BurgerMapCore
import Logging
import PostgresNIO

/// Likes, bookmarks, comments and follows in PostgreSQL, with the same answers as the SQLite
/// engine (`AppDatabase+Reactions/Comments/Follows.swift`).
///
/// A pair's primary key turns a second add into a no-op (`ON CONFLICT DO NOTHING`), and the
/// schema's triggers move the counts in the statement that adds or removes the pair, under the
/// counted row's lock: concurrent toggles never lose or double a count. Each toggle reads the
/// count afterwards in its own transaction.
public struct PostgresSocialStore: SocialStore {
    let pool: PostgresPool
    let logger: Logger
    /// Records the events of this store's writes, in their transactions.
    let events: PostgresEventStore

    /// The pair table and count column of a reaction (constants, for `\(unescaped:)`).
    static func table(_ reaction: Reaction) -> (pairs: String, count: String) {
        switch reaction {
        case .like: ("review_likes", "like_count")
        case .bookmark: ("review_bookmarks", "bookmark_count")
        }
    }

    /// Adds (`active`) or removes a user's reaction; `nil` when the review does not exist.
    public func setReaction(
        _ reaction: Reaction, active: Bool, review reviewID: Int64, user userID: Int64, at time: Timestamp
    ) async throws -> ReactionState? {
        let table = Self.table(reaction)
        let events = events
        return try await events.transaction(logger: logger) { connection in
            // KEY SHARE: the review cannot be deleted until this toggle commits, yet toggles of
            // other users (whose triggers update the review's count) do not wait for it.
            // A hidden review cannot be liked or bookmarked but by its author; a reaction on it
            // can be taken back.
            let review = try await connection.query(
                """
                SELECT author_id FROM reviews
                WHERE id = \(reviewID) AND (NOT \(active) OR hidden_at IS NULL OR author_id = \(userID))
                FOR KEY SHARE
                """, logger: logger)
            var author: Int64?
            for try await value in review.decode(Int64.self) { author = value }
            guard let author else { return nil }
            // The pair row and, when it changed, the event, in one prepared statement.
            let event = SocialRules.reactionEvent(
                reaction, active: active, user: userID, review: reviewID, author: author)
            try await connection.forEachRow(
                Self.toggleQuery(reaction, active, user: userID, review: reviewID, at: time, event: event),
                preparedAs: Self.toggleText(reaction, active), logger: logger
            ) { _ in }
            let rows = try await connection.query(
                "SELECT \(unescaped: table.count) FROM reviews WHERE id = \(reviewID)", logger: logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return ReactionState(active: active, count: count)
        }
    }

    /// A toggle's statement: the pair row set or taken back and, when that changed it, the event
    /// (after `PostgresEventStore.writerLock`), in one statement.
    static func toggleQuery(
        _ reaction: Reaction, _ active: Bool, user userID: Int64, review reviewID: Int64, at time: Timestamp,
        event: DomainEvent
    ) -> PostgresQuery {
        let table = Self.table(reaction)
        let change: PostgresQuery =
            active
            ? """
            INSERT INTO \(unescaped: table.pairs) (user_id, review_id, created_at)
            VALUES (\(userID), \(reviewID), \(time.milliseconds))
            ON CONFLICT DO NOTHING RETURNING 1
            """
            : """
            DELETE FROM \(unescaped: table.pairs) WHERE user_id = \(userID) AND review_id = \(reviewID)
            RETURNING 1
            """
        var query: PostgresQuery = """
            WITH changed AS (\(unescaped: change.sql))
            INSERT INTO events (id, time, kind, actor, subject, payload)
            SELECT nextval('events_id_seq'), $\(unescaped: "\(change.binds.count + 1)")::bigint,
                $\(unescaped: "\(change.binds.count + 2)")::text, $\(unescaped: "\(change.binds.count + 3)")::bigint,
                $\(unescaped: "\(change.binds.count + 4)")::bigint, $\(unescaped: "\(change.binds.count + 5)")::text
            FROM changed, \(unescaped: PostgresEventStore.writerLock)
            """
        query.binds = change.binds
        query.binds.append(time.milliseconds)
        query.binds.append(event.kind.rawValue)
        query.binds.append(event.actor)
        query.binds.append(event.subject)
        query.binds.append(event.details.json)
        return query
    }

    /// The four toggles' statements, prepared: parsed and planned once per connection (the
    /// statement with its event is planned in about as long as it runs).
    static func toggleText(_ reaction: Reaction, _ active: Bool) -> any PreparedText.Type {
        switch (reaction, active) {
        case (.like, true): LikeText.self
        case (.like, false): UnlikeText.self
        case (.bookmark, true): BookmarkText.self
        case (.bookmark, false): UnbookmarkText.self
        }
    }

    static func representativeToggle(_ reaction: Reaction, _ active: Bool) -> PostgresQuery {
        toggleQuery(
            reaction, active, user: 0, review: 0, at: Timestamp(milliseconds: 0),
            event: SocialRules.reactionEvent(reaction, active: active, user: 0, review: 0, author: 0))
    }

    enum LikeText: PreparedText {
        static let name = "burgermap_like"
        static let text = representativeToggle(.like, true)
    }
    enum UnlikeText: PreparedText {
        static let name = "burgermap_unlike"
        static let text = representativeToggle(.like, false)
    }
    enum BookmarkText: PreparedText {
        static let name = "burgermap_bookmark"
        static let text = representativeToggle(.bookmark, true)
    }
    enum UnbookmarkText: PreparedText {
        static let name = "burgermap_unbookmark"
        static let text = representativeToggle(.bookmark, false)
    }

    /// The ids of every review a user reacted to, most recent reaction first.
    public func reactedReviewIDs(_ reaction: Reaction, user userID: Int64) async throws -> [Int64] {
        let rows = try await pool.query(
            """
            SELECT review_id FROM \(unescaped: Self.table(reaction).pairs) WHERE user_id = \(userID)
            ORDER BY created_at DESC, review_id DESC
            """, logger: logger)
        var ids: [Int64] = []
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        return ids
    }

    /// The reviews a user reacted to, most recent reaction first (ties by review id).
    public func reactedReviews(_ reaction: Reaction, user userID: Int64, after: TimeKey?, limit: Int) async throws
        -> KeysetPage<Review>
    {
        let (time, id) = PostgresKeyset.below(after)
        // The reaction's time is the list time; keys and reviews come in one statement, so a
        // review deleted meanwhile (its reactions go with it) never leaves a hole in a page.
        let keys: PostgresQuery = """
            SELECT review_id, created_at FROM \(unescaped: Self.table(reaction).pairs)
            WHERE user_id = \(userID) AND (created_at, review_id) < (\(time), \(id))
                AND review_id NOT IN (
                    SELECT id FROM reviews WHERE author_id IN (
                        SELECT blocked_id FROM blocks WHERE blocker_id = \(userID)
                        UNION ALL SELECT blocker_id FROM blocks WHERE blocked_id = \(userID)))
                AND review_id NOT IN (SELECT id FROM reviews WHERE hidden_at IS NOT NULL AND author_id <> \(userID))
            ORDER BY created_at DESC, review_id DESC LIMIT \(Int64(limit) + 1)
            """
        return try await pool.withConnection { connection in
            try await PostgresReviewReads.reviewPage(
                keys: keys, limit: limit, viewer: userID, on: connection, logger: logger)
        }
    }

    /// Makes `follower` follow (`active`) or stop following `followee`; `nil` when `followee` does not exist.
    public func setFollow(_ active: Bool, follower: Int64, followee: Int64, at time: Timestamp) async throws
        -> FollowState?
    {
        try await events.transaction(logger: logger) { connection in
            // Both users' rows, in id order: the trigger updates both counts, and two people who
            // follow each other at the same moment would otherwise lock them in opposite orders.
            let locked = try await connection.query(
                """
                SELECT id FROM users WHERE id IN (\(follower), \(followee)) ORDER BY id FOR NO KEY UPDATE
                """, logger: logger)
            var found = false
            for try await id in locked.decode(Int64.self) where id == followee { found = true }
            guard found else { return nil }
            let changed: PostgresRowSequence
            if active {
                changed = try await connection.query(
                    """
                    INSERT INTO follows (follower_id, followee_id, created_at)
                    VALUES (\(follower), \(followee), \(time.milliseconds))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger)
            } else {
                changed = try await connection.query(
                    "DELETE FROM follows WHERE follower_id = \(follower) AND followee_id = \(followee) RETURNING 1",
                    logger: logger)
            }
            if let event = SocialRules.followEvent(
                following: active, follower: follower, followee: followee,
                rowChanged: try await PostgresRows.exist(changed))
            {
                try await PostgresEventStore.record(event, at: time, on: connection, logger: logger)
            }
            let rows = try await connection.query(
                "SELECT follower_count FROM users WHERE id = \(followee)", logger: logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return FollowState(following: active, followerCount: count)
        }
    }

    /// A page of a user's followers or followees, newest follow first (ties by user id).
    public func follows(_ list: FollowList, of userID: Int64, after: TimeKey?, limit: Int) async throws
        -> KeysetPage<User>
    {
        let (mine, theirs) = list == .followers ? ("followee_id", "follower_id") : ("follower_id", "followee_id")
        let (time, id) = PostgresKeyset.below(after)
        let rows = try await pool.query(
            """
            SELECT \(unescaped: PostgresUserRow.columns), f.created_at
            FROM follows AS f JOIN users AS u ON u.id = f.\(unescaped: theirs)
            WHERE f.\(unescaped: mine) = \(userID) AND (f.created_at, f.\(unescaped: theirs)) < (\(time), \(id))
            ORDER BY f.created_at DESC, f.\(unescaped: theirs) DESC LIMIT \(Int64(limit) + 1)
            """, logger: logger)
        var users: [(user: User, followedAt: Int64)] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            users.append((try PostgresUserRow.user(row, from: 0), try row[6].decode(Int64.self)))
        }
        return KeysetPage(rows: users, limit: limit, item: \.user) {
            TimeKey(time: Timestamp(milliseconds: $0.followedAt), id: $0.user.id)
        }
    }
}
