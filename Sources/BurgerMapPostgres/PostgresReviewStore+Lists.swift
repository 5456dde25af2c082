import BurgerMap
import Logging
import PostgresNIO

/// The review lists: newest first, one keys statement per scope, each prepared.
extension PostgresReviewStore {
    /// One page of a newest-first review list (ties by id), strictly after `after`.
    public func reviews(_ scope: ReviewListScope, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Review>
    {
        let keys = Self.keys(scope, after: after, limit: limit, viewer: viewer)
        return try await client.withConnection { connection in
            func page<Text: PreparedText>(_ text: Text.Type) async throws -> KeysetPage<Review> {
                try await PostgresReviewReads.reviewPage(
                    keys: keys, limit: limit, viewer: viewer, preparedAs: text, on: connection, logger: logger)
            }
            return switch scope {
            case .all: try await page(AllText.self)
            case .place: try await page(PlaceText.self)
            case .author: try await page(AuthorText.self)
            }
        }
    }

    /// The review lists' statements, prepared (one per scope).
    enum AllText: PreparedText {
        static let name = "burgermap_reviews_all"
        static let text = PostgresReviewReads.statement(keys: keys(.all, after: nil, limit: 20, viewer: 0), viewer: 0)
    }

    enum PlaceText: PreparedText {
        static let name = "burgermap_reviews_place"
        static let text = PostgresReviewReads.statement(
            keys: keys(.place(0), after: nil, limit: 20, viewer: 0), viewer: 0)
    }

    enum AuthorText: PreparedText {
        static let name = "burgermap_reviews_author"
        static let text = PostgresReviewReads.statement(
            keys: keys(.author(0), after: nil, limit: 20, viewer: 0), viewer: 0)
    }

    /// The keys statement of a review list: (id, created_at) of up to `limit + 1` reviews.
    static func keys(_ scope: ReviewListScope, after: TimeKey?, limit: Int, viewer: Int64?) -> PostgresQuery {
        let (time, id) = PostgresReviewReads.below(after)
        let fetch = Int64(limit) + 1
        // One statement per scope, each matching one index's order (by time, by place, by author).
        // The viewer's blocks, both ways, hide reviews: two primary-key probes per row read (none
        // without a viewer), so a page costs the same whatever the number of blocks; hashing the
        // viewer's whole block set first cost 1.23× the read without blocks with 1,000 of them
        // (a place's first page, `scripts/bench-feed --engines`). Hidden reviews only their
        // authors see.
        return
            switch scope
        {
        case .all:
            """
            SELECT id, created_at FROM reviews WHERE (created_at, id) < (\(time), \(id))
                AND (\(viewer)::bigint IS NULL OR (NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = author_id)
                    AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = author_id AND blocked_id = \(viewer))))
                AND (hidden_at IS NULL OR author_id = \(viewer))
            ORDER BY created_at DESC, id DESC LIMIT \(fetch)
            """
        case .place(let placeID):
            """
            SELECT id, created_at FROM reviews WHERE place_id = \(placeID) AND (created_at, id) < (\(time), \(id))
                AND (\(viewer)::bigint IS NULL OR (NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = author_id)
                    AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = author_id AND blocked_id = \(viewer))))
                AND (hidden_at IS NULL OR author_id = \(viewer))
            ORDER BY created_at DESC, id DESC LIMIT \(fetch)
            """
        case .author(let authorID):
            """
            SELECT id, created_at FROM reviews WHERE author_id = \(authorID) AND (created_at, id) < (\(time), \(id))
                AND (\(viewer)::bigint IS NULL OR (NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = author_id)
                    AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = author_id AND blocked_id = \(viewer))))
                AND (hidden_at IS NULL OR author_id = \(viewer))
            ORDER BY created_at DESC, id DESC LIMIT \(fetch)
            """
        }
    }
}
