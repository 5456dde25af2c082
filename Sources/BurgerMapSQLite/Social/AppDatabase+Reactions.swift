import BurgerMapCore
import GRDB

/// Where the SQLite engine keeps each reaction: its pair table, and the review's count column.
extension Reaction {
    var pairs: PairTable {
        switch self {
        case .like: PairTable(name: "review_likes", actor: "user_id", target: "review_id")
        case .bookmark: PairTable(name: "review_bookmarks", actor: "user_id", target: "review_id")
        }
    }

    var countColumn: String {
        switch self {
        case .like: "like_count"
        case .bookmark: "bookmark_count"
        }
    }
}

extension AppDatabase {
    /// Adds (`active`) or removes `user`'s reaction on a review, idempotently: the pair's primary
    /// key turns a second add into a no-op, and the count changes in the same statement, so
    /// concurrent toggles never lose or double an update. `nil` when the review does not exist.
    public func setReaction(
        _ reaction: Reaction, active: Bool, review reviewID: Int64, user userID: Int64, at time: Timestamp = .now()
    ) async throws -> ReactionState? {
        try await measured("set_\(reaction.rawValue)") {
            try await pool.write { db in
                // A hidden review cannot be liked or bookmarked but by its author; a reaction
                // on it can be taken back.
                let found =
                    try active
                    ? Self.reviewVisible(db, id: reviewID, viewer: userID) : Self.reviewExists(db, id: reviewID)
                guard found else { return nil }
                if try reaction.pairs.set(active, actor: userID, target: reviewID, at: time, in: db) {
                    guard
                        let author = try Int64.fetchOne(
                            db, sql: "SELECT author_id FROM reviews WHERE id = ?", arguments: [reviewID])
                    else { throw StorageError.rowVanished("reviews") }
                    try self.recordEvent(
                        SocialRules.reactionEvent(
                            reaction, active: active, user: userID, review: reviewID, author: author),
                        at: time, in: db)
                }
                let count = try Int.fetchOne(
                    db, sql: "SELECT \(reaction.countColumn) FROM reviews WHERE id = ?", arguments: [reviewID])
                return ReactionState(active: active, count: count ?? 0)
            }
        }
    }

    /// The ids of every review `user` reacted to, most recent reaction first.
    public func reactedReviewIDs(_ reaction: Reaction, user userID: Int64) async throws -> [Int64] {
        try await pool.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT review_id FROM \(reaction.pairs.name) WHERE user_id = ?
                    ORDER BY created_at DESC, review_id DESC
                    """, arguments: [userID])
        }
    }

    /// The reviews `user` reacted to, most recent reaction first (ties by review id), keyset-paged
    /// on the reaction's time. Keys and reviews are read in one transaction, so a review deleted
    /// meanwhile (its reactions go with it) never leaves a hole in a page.
    public func reactedReviews(_ reaction: Reaction, user userID: Int64, after: TimeKey?, limit: Int) async throws
        -> KeysetPage<Review>
    {
        try await measured("\(reaction.rawValue)_list") {
            try await pool.read { db in
                // Reviews of users the viewer blocks, or who block the viewer, are left out, and
                // so are hidden reviews (but the viewer's own).
                let query = KeysetOrder.newestFirst.query(
                    "SELECT review_id, created_at FROM \(reaction.pairs.name)",
                    where: """
                        user_id = ? AND review_id NOT IN (
                            SELECT id FROM reviews WHERE author_id IN \(Self.blockedAuthors))
                            AND review_id NOT IN \(Self.hiddenReviews)
                        """, [userID, userID, userID, userID], time: "created_at", id: "review_id", after: after,
                    limit: limit)
                let keys = try Row.fetchAll(db, sql: query.sql, arguments: query.arguments)
                return try Self.reviewPage(
                    db, keys: keys, id: "review_id", time: "created_at", limit: limit, viewer: userID)
            }
        }
    }
}
