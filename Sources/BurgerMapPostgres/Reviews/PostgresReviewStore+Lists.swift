import BurgerMapCore
import Logging
import PostgresNIO

/// The review lists: newest first, one keys statement per scope, each prepared.
extension PostgresReviewStore {
    /// One page of a newest-first review list (ties by id), strictly after `after`.
    public func reviews(_ scope: ReviewListScope, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Review>
    {
        let keys = Self.keys(scope, after: after, limit: limit, viewer: viewer)
        let text: any PreparedText.Type =
            switch (scope, viewer) {
            case (.all, .some): AllText.self
            case (.place, .some): PlaceText.self
            case (.author, .some): AuthorText.self
            case (.all, nil): AllSignedOutText.self
            case (.place, nil): PlaceSignedOutText.self
            case (.author, nil): AuthorSignedOutText.self
            }
        return try await pool.withConnection { connection in
            try await PostgresReviewReads.reviewPage(
                keys: keys, limit: limit, viewer: viewer, preparedAs: text, on: connection, logger: logger)
        }
    }

    /// The review lists' statements, prepared (one per scope).
    enum AllText: PreparedText {
        static let name = "burgermap_reviews_all"
        static let text = PostgresReviewReads.statement(
            keys: keys(.all, after: nil, limit: ListLimits.default, viewer: 0), viewer: 0)
    }

    enum PlaceText: PreparedText {
        static let name = "burgermap_reviews_place"
        static let text = PostgresReviewReads.statement(
            keys: keys(.place(0), after: nil, limit: ListLimits.default, viewer: 0), viewer: 0)
    }

    enum AuthorText: PreparedText {
        static let name = "burgermap_reviews_author"
        static let text = PostgresReviewReads.statement(
            keys: keys(.author(0), after: nil, limit: ListLimits.default, viewer: 0), viewer: 0)
    }

    /// The same lists for a reader who is not signed in: no blocks to read, only visible reviews,
    /// no likes of theirs. With the viewer a NULL parameter of the signed-in text instead, the
    /// generic plan priced the block lookups that a NULL folds away, looked dearer than the custom
    /// plans, and PostgreSQL planned every signed-out page anew at bind: 0.7 ms of a place's
    /// 1.2 ms page in its log (`log_min_duration_statement = 0`).
    enum AllSignedOutText: PreparedText {
        static let name = "burgermap_reviews_all_signed_out"
        static let text = PostgresReviewReads.statement(
            keys: keys(.all, after: nil, limit: ListLimits.default, viewer: nil), viewer: nil)
    }

    enum PlaceSignedOutText: PreparedText {
        static let name = "burgermap_reviews_place_signed_out"
        static let text = PostgresReviewReads.statement(
            keys: keys(.place(0), after: nil, limit: ListLimits.default, viewer: nil), viewer: nil)
    }

    enum AuthorSignedOutText: PreparedText {
        static let name = "burgermap_reviews_author_signed_out"
        static let text = PostgresReviewReads.statement(
            keys: keys(.author(0), after: nil, limit: ListLimits.default, viewer: nil), viewer: nil)
    }

    /// The keys statement of a review list: (id, created_at) of up to `limit + 1` reviews.
    static func keys(_ scope: ReviewListScope, after: TimeKey?, limit: Int, viewer: Int64?) -> PostgresQuery {
        let (time, id) = PostgresKeyset.below(after)
        // Built from parts (every value bound) because the signed-out text leaves the viewer's
        // filters out rather than binding a NULL.
        var binds = PostgresBindings()
        func parameter(_ value: Int64) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        // One statement per scope, each matching one index's order (by time, by place, by author).
        let scopeFilter =
            switch scope {
            case .all: ""
            case .place(let placeID): "place_id = \(parameter(placeID)) AND "
            case .author(let authorID): "author_id = \(parameter(authorID)) AND "
            }
        let keyFilter = "(created_at, id) < (\(parameter(time)), \(parameter(id)))"
        // The viewer's blocks, both ways, hide reviews: two primary-key probes per row read (none
        // without a viewer), so a page costs the same whatever the number of blocks; hashing the
        // viewer's whole block set first cost 1.23× the read without blocks with 1,000 of them
        // (a place's first page, `scripts/bench-feed --engines`). Hidden reviews only their
        // authors see.
        var visible = "AND hidden_at IS NULL"
        if let viewer {
            let reader = parameter(viewer)
            visible = """
                AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(reader) AND blocked_id = author_id)
                    AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = author_id AND blocked_id = \(reader))
                    AND (hidden_at IS NULL OR author_id = \(reader))
                """
        }
        // The default page size is written into the text (the prepared statements are built with
        // it): with `LIMIT $n` the generic plan priced a page at a tenth of the list's rows, never
        // looked cheaper than a custom plan, and every request was planned anew (0.7 ms at bind
        // for a place with 1,000 reviews, in PostgreSQL's log); with the number, PostgreSQL keeps
        // the generic plan after five executions.
        let fetch = limit == ListLimits.default ? "\(limit + 1)" : parameter(Int64(limit) + 1)
        let sql = """
            SELECT id, created_at FROM reviews WHERE \(scopeFilter)\(keyFilter)
                \(visible)
            ORDER BY created_at DESC, id DESC LIMIT \(fetch)
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
