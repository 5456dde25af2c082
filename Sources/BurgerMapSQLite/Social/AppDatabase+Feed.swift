import BurgerMapCore
import GRDB

/// How a feed page was found (the benchmark and tests look at both roads; the answer is the same).
public enum FeedPlan: Sendable {
    /// Let the feed choose: the time window first, the per-author merge when it comes up short.
    case automatic
    /// Walk all reviews newest first from the cursor, keeping followed authors', up to the window.
    case timeWindow
    /// Read each followed author's reviews before the cursor and keep the newest.
    case perAuthor
}

extension AppDatabase {
    /// How many reviews (of anyone) the time-window road reads before it gives up
    /// (`FeedRules.window`, the same in every engine).
    public static let feedWindow = FeedRules.window

    /// The authors whose reviews make up `viewer`'s feed: the people they follow, and themselves.
    private static let feedAuthors =
        "SELECT followee_id FROM follows WHERE follower_id = ? UNION ALL SELECT ?"

    /// A page of `viewer`'s feed: the reviews of the people they follow and their own, newest
    /// first (ties by id), keyset-paged on (created_at, id), without hidden ones (but their own).
    ///
    /// Two roads give the same page. The time window walks the covering index of all reviews
    /// from the cursor and keeps followed authors' reviews: its cost depends on how dense they
    /// are, not on how deep the page is. When the window holds fewer than a page (a sparse
    /// feed, or its end), the per-author road seeks each followed author's reviews before the
    /// cursor and keeps the newest: its cost is what those authors wrote before the cursor.
    public func feed(
        of viewer: Int64, after: TimeKey?, limit: Int, plan: FeedPlan = .automatic, window: Int = feedWindow
    ) async throws -> KeysetPage<Review> {
        try await measured("feed") {
            try await read { db in
                var keys: [Row] = []
                if plan != .perAuthor {
                    keys = try Self.feedKeys(db, viewer: viewer, after: after, limit: limit, window: window)
                }
                if plan == .perAuthor || (plan == .automatic && keys.count <= limit) {
                    keys = try Self.feedKeys(db, viewer: viewer, after: after, limit: limit, window: nil)
                }
                return try Self.reviewPage(db, keys: keys, id: "id", time: "created_at", limit: limit, viewer: viewer)
            }
        }
    }

    /// Up to `limit + 1` (id, created_at) of feed reviews after `after`, newest first: within the
    /// next `window` reviews of anyone when a window is given, else by author.
    private static func feedKeys(_ db: Database, viewer: Int64, after: TimeKey?, limit: Int, window: Int?) throws
        -> [Row]
    {
        let order = KeysetOrder.newestFirst
        guard let window else {
            let query = order.query(
                "SELECT id, created_at FROM reviews INDEXED BY reviews_by_author",
                where: "author_id IN (\(feedAuthors)) AND id NOT IN \(hiddenReviews)", [viewer, viewer, viewer],
                time: "created_at", id: "id", after: after,
                limit: limit)
            return try Row.fetchAll(db, sql: query.sql, arguments: query.arguments)
        }
        let keyset = order.after(after, time: "created_at", id: "id")
        let orderBy = order.orderBy(time: "created_at", id: "id")
        return try Row.fetchAll(
            db,
            sql: """
                SELECT id, created_at FROM (
                    SELECT id, created_at, author_id FROM reviews INDEXED BY reviews_by_time_with_author
                    WHERE 1\(keyset.sql) \(orderBy) LIMIT ?)
                WHERE author_id IN (\(feedAuthors)) AND id NOT IN \(hiddenReviews)
                \(orderBy) LIMIT ?
                """,
            arguments: StatementArguments(keyset.arguments + [window, viewer, viewer, viewer, limit + 1]))
    }
}
