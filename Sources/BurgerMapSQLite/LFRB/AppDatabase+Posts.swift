import BurgerMapCore
import GRDB

/// The LookForRealBurger routes' batched reads (`PostStore`). SQLite has no round trip to save,
/// so each asks one indexed query per id inside a single read transaction.
extension AppDatabase: PostStore {
    /// Places with an id above `afterID`, by id.
    public func places(afterID: Int64, limit: Int) async throws -> [Place] {
        try await measured("post_places") {
            try await pool.read { db in
                try Self.fetchPlaces(
                    db, sql: "SELECT \(Self.placeColumns) FROM places WHERE id > ? ORDER BY id LIMIT ?",
                    arguments: [afterID, limit])
            }
        }
    }

    /// The newest reviews of each place, as links.
    public func reviewLinks(places: [Int64], limit: Int, viewer: Int64?) async throws -> [Int64: [ReviewLink]] {
        try await measured("post_review_links") {
            try await pool.read { db in
                var links: [Int64: [ReviewLink]] = [:]
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT r.id, r.created_at, u.id, u.nickname FROM reviews AS r JOIN users AS u ON u.id = r.author_id
                        WHERE r.place_id = ? AND \(Self.notBlocked("r.author_id"))
                            AND (r.hidden_at IS NULL OR r.author_id = ?)
                        ORDER BY r.created_at DESC, r.id DESC LIMIT ?
                        """)
                for place in places {
                    let rows = try Row.fetchAll(statement, arguments: [place, viewer, viewer, viewer, viewer, limit])
                    guard !rows.isEmpty else { continue }
                    links[place] = rows.map {
                        ReviewLink(
                            reviewID: $0[0], createdAt: Timestamp(milliseconds: $0[1]), authorID: $0[2],
                            authorNickname: $0[3])
                    }
                }
                return links
            }
        }
    }

    /// The users with a reaction on each review, most recent first.
    public func reactingUsers(_ reaction: Reaction, reviews: [Int64], limit: Int) async throws -> [Int64: [Int64]] {
        let table = reaction == .like ? "review_likes" : "review_bookmarks"
        return try await measured("post_reacting_users") {
            try await pool.read { db in
                var users: [Int64: [Int64]] = [:]
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT user_id FROM \(table) WHERE review_id = ?
                        ORDER BY created_at DESC, user_id DESC LIMIT ?
                        """)
                for review in reviews {
                    let ids = try Int64.fetchAll(statement, arguments: [review, limit])
                    if !ids.isEmpty { users[review] = ids }
                }
                return users
            }
        }
    }

    /// The newest comments of each review.
    public func comments(reviews: [Int64], limit: Int, viewer: Int64?) async throws -> [Int64: [Comment]] {
        try await measured("post_comments") {
            try await pool.read { db in
                var comments: [Int64: [Comment]] = [:]
                for review in reviews {
                    let page = try Self.comments(
                        db,
                        sql:
                            """
                            \(Self.commentSelect) WHERE c.review_id = ? AND \(Self.notBlocked("c.author_id"))
                                AND (c.hidden_at IS NULL OR c.author_id = ?)
                            ORDER BY c.created_at DESC, c.id DESC LIMIT ?
                            """,
                        arguments: [review, viewer, viewer, viewer, viewer, limit])
                    if !page.isEmpty { comments[review] = page }
                }
                return comments
            }
        }
    }

    /// A user's newest review ids.
    public func reviewIDs(author: Int64, limit: Int, viewer: Int64?) async throws -> [Int64] {
        try await pool.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT id FROM reviews WHERE author_id = ? AND \(Self.notBlocked("author_id"))
                        AND (hidden_at IS NULL OR author_id = ?)
                    ORDER BY created_at DESC, id DESC LIMIT ?
                    """, arguments: [author, viewer, viewer, viewer, viewer, limit])
        }
    }
}
