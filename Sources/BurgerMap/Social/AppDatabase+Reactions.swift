import GRDB

/// A viewer's own mark on a review: a like, or a bookmark ("want to go there"). Both are stored
/// as a (user, review) pair with a time; the review's count follows the pairs (schema triggers).
public enum Reaction: String, Sendable, CaseIterable {
    case like
    case bookmark

    var table: String {
        switch self {
        case .like: "review_likes"
        case .bookmark: "review_bookmarks"
        }
    }

    var countColumn: String {
        switch self {
        case .like: "like_count"
        case .bookmark: "bookmark_count"
        }
    }
}

/// A reaction after a toggle: whether the viewer has it, and the review's exact count.
public struct ReactionState: Sendable, Equatable {
    public var active: Bool
    public var count: Int
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
                guard try Self.reviewExists(db, id: reviewID) else { return nil }
                if active {
                    try db.execute(
                        sql: """
                            INSERT INTO \(reaction.table) (user_id, review_id, created_at) VALUES (?, ?, ?)
                            ON CONFLICT DO NOTHING
                            """,
                        arguments: [userID, reviewID, time.milliseconds])
                } else {
                    try db.execute(
                        sql: "DELETE FROM \(reaction.table) WHERE user_id = ? AND review_id = ?",
                        arguments: [userID, reviewID])
                }
                let count = try Int.fetchOne(
                    db, sql: "SELECT \(reaction.countColumn) FROM reviews WHERE id = ?", arguments: [reviewID])
                return ReactionState(active: active, count: count ?? 0)
            }
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
                let order = KeysetOrder.newestFirst
                let keyset = order.after(after, time: "created_at", id: "review_id")
                let keys = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT review_id, created_at FROM \(reaction.table) WHERE user_id = ?\(keyset.sql)
                        \(order.orderBy(time: "created_at", id: "review_id")) LIMIT ?
                        """,
                    arguments: StatementArguments([userID] + keyset.arguments + [limit + 1]))
                let page = KeysetPage(
                    rows: keys, limit: limit, item: { $0["review_id"] as Int64 },
                    key: { TimeKey(time: Timestamp(milliseconds: $0["created_at"]), id: $0["review_id"]) })
                return KeysetPage(items: try Self.reviews(db, ids: page.items, viewer: userID), next: page.next)
            }
        }
    }
}
