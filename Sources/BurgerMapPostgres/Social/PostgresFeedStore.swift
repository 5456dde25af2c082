import BurgerMapCore
import Logging
import PostgresNIO

/// A reader's feed in PostgreSQL: the same pages as the SQLite engine's
/// `Social/AppDatabase+Feed.swift` (the reviews of the people they follow and their own, newest
/// first, ties by id), found the same two ways, in one statement.
///
/// The time window walks `reviews_by_time_with_author` backwards from the cursor (an index-only
/// scan) for at most `FeedRules.window` reviews of anyone and keeps the followed authors'
/// (a hashed set): its cost depends on how dense the feed is, not on how deep the page is. Only
/// when that window holds no more than a page (a sparse feed, or its end) does the statement
/// take the per-author road: for each followed author, their newest reviews before the cursor
/// from `reviews_by_author` (a page and one at most, each a short index-only scan), merged. The
/// choice is a gate on the window's count, so the road not taken costs nothing.
public struct PostgresFeedStore: FeedStore {
    let pool: PostgresPool
    let logger: Logger
    /// How many reviews of anyone the time window reads (tests make it small, so that a small
    /// dataset takes both roads).
    var window = FeedRules.window

    /// A page of `viewer`'s feed, keyset-paged on (created_at, id).
    public func feed(of viewer: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<Review> {
        try await pool.withConnection { connection in
            try await PostgresReviewReads.reviewPage(
                keys: Self.keys(of: viewer, after: after, limit: limit, window: window), limit: limit,
                viewer: viewer, preparedAs: PageText.self, on: connection, logger: logger)
        }
    }

    /// The page statement, prepared.
    enum PageText: PreparedText {
        static let name = "burgermap_feed_page"
        static let text = PostgresReviewReads.statement(keys: keys(of: 0, after: nil, limit: 20), viewer: 0)
    }

    /// The one statement a feed page runs (keys, reviews, photos and the viewer's marks);
    /// public so that the benchmark can `EXPLAIN ANALYZE` exactly what a page runs.
    public static func pageStatement(
        of viewer: Int64, after: TimeKey?, limit: Int, window: Int = FeedRules.window
    ) -> PostgresQuery {
        PostgresReviewReads.statement(
            keys: keys(of: viewer, after: after, limit: limit, window: window), viewer: viewer)
    }

    /// The statement that selects a feed page's (id, created_at), up to `limit + 1`, newest first.
    static func keys(
        of viewer: Int64, after: TimeKey?, limit: Int, window: Int = FeedRules.window
    ) -> PostgresQuery {
        let (time, id) = PostgresKeyset.below(after)
        let fetch = Int64(limit) + 1
        // `recent` is read more than once, so PostgreSQL computes it once. `authors` holds no
        // duplicate (follows' key, and its CHECK against following oneself; UNION besides), so
        // the per-author road never shows a review twice.
        //
        // The window's author test is an OR, so that PostgreSQL keeps the IN as a hashed SubPlan
        // (one hash of the followed ids, then a probe per review, stopping at the page) rather
        // than pulling it up into a join whose method it picks by cost. As a join, the plan
        // changed with the statistics' sample: a hash join over the whole window (13 ms), or a
        // nested loop that scanned the followed list once per review (1.8 million comparisons,
        // 250 ms); the SubPlan form answered the same page in 2.2 ms (1,000,000 reviews, 1,000
        // followed, `scripts/bench-feed --engines`). Hidden reviews (but the viewer's own) are
        // one more hashed SubPlan over the partial index `reviews_hidden`.
        return """
            WITH authors AS (
                SELECT followee_id AS id FROM follows WHERE follower_id = \(viewer) UNION SELECT \(viewer)),
            recent AS (
                SELECT w.id, w.created_at FROM (
                    SELECT id, created_at, author_id FROM reviews
                    WHERE (created_at, id) < (\(time), \(id))
                    ORDER BY created_at DESC, id DESC LIMIT \(Int64(window))) AS w
                WHERE (w.author_id = \(viewer)
                    OR w.author_id IN (SELECT followee_id FROM follows WHERE follower_id = \(viewer)))
                    AND w.id NOT IN (SELECT id FROM reviews WHERE hidden_at IS NOT NULL AND author_id <> \(viewer))
                ORDER BY w.created_at DESC, w.id DESC LIMIT \(fetch))
            SELECT id, created_at FROM recent WHERE (SELECT count(*) FROM recent) > \(Int64(limit))
            UNION ALL
            (SELECT mine.id, mine.created_at FROM authors AS a CROSS JOIN LATERAL (
                    SELECT id, created_at FROM reviews
                    WHERE author_id = a.id AND (created_at, id) < (\(time), \(id))
                        AND id NOT IN (SELECT id FROM reviews WHERE hidden_at IS NOT NULL AND author_id <> \(viewer))
                    ORDER BY created_at DESC, id DESC LIMIT \(fetch)) AS mine
                WHERE (SELECT count(*) FROM recent) <= \(Int64(limit))
                ORDER BY mine.created_at DESC, mine.id DESC LIMIT \(fetch))
            """
    }
}
