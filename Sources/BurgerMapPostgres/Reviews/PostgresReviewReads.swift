import BurgerMapCore
import Logging
import PostgresNIO

/// How the PostgreSQL stores read reviews (one statement for every list of reviews), with the same
/// answers as the SQLite engine's `AppDatabase+ReviewReads.swift`.
enum PostgresReviewReads {
    /// The reviews whose (id, list time) a keys query selects (at most a page and one), each as
    /// `viewer` sees it, newest list time first (ties by id), with their list times.
    ///
    /// One statement: the keys, the review rows, their photos (in position order, aggregated per
    /// review) and the viewer's likes and bookmarks are read in one snapshot, so a review deleted
    /// meanwhile is either whole or absent, and a page is one round trip however long it is.
    ///
    /// - Parameter text: the prepared statement to run it as (see `PreparedText`), if any.
    static func reviews(
        keys: PostgresQuery, viewer: Int64?, preparedAs text: (any PreparedText.Type)? = nil,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [(review: Review, listTime: Int64)] {
        var reviews: [(review: Review, listTime: Int64)] = []
        try await connection.forEachRow(statement(keys: keys, viewer: viewer), preparedAs: text, logger: logger) {
            reviews.append(try review($0.makeRandomAccess()))
        }
        return reviews
    }

    /// The statement `reviews(keys:…)` runs: the review columns `review(_:)` reads, for the keys.
    /// Without a viewer, `liked_by_me` and `bookmarked_by_me` are constants rather than lookups
    /// of a NULL user (see `PostgresReviewStore.PlaceSignedOutText` for why the text differs).
    static func statement(keys: PostgresQuery, viewer: Int64?) -> PostgresQuery {
        // The keys query's own parameters come first; the viewer is the next one.
        var binds = keys.binds
        let viewerColumns: String
        if let viewer {
            binds.append(viewer)
            let viewerParameter = "$\(binds.count)"
            viewerColumns = """
                EXISTS (SELECT 1 FROM review_likes WHERE user_id = \(viewerParameter) AND review_id = r.id),
                       EXISTS (SELECT 1 FROM review_bookmarks WHERE user_id = \(viewerParameter) AND review_id = r.id)
                """
        } else {
            viewerColumns = "false, false"
        }
        let sql = """
            SELECT r.id, r.rating, r.text, r.like_count, r.bookmark_count, r.comment_count, r.created_at,
                   r.updated_at, p.id, p.name, p.lat, p.lng, \(PostgresUserRow.columns),
                   coalesce(ph.ids, '{}'), coalesce(ph.widths, '{}'), coalesce(ph.heights, '{}'),
                   \(viewerColumns),
                   k.list_time, r.title, coalesce(ph.object_keys, '{}')
            FROM (\(keys.sql)) AS k (id, list_time)
            JOIN reviews AS r ON r.id = k.id
            JOIN places AS p ON p.id = r.place_id
            JOIN users AS u ON u.id = r.author_id
            CROSS JOIN LATERAL (
                SELECT array_agg(id ORDER BY position) AS ids, array_agg(width ORDER BY position) AS widths,
                       array_agg(height ORDER BY position) AS heights,
                       array_agg(COALESCE(object_key, '') ORDER BY position) AS object_keys
                FROM photos WHERE review_id = r.id) AS ph
            ORDER BY k.list_time DESC, k.id DESC
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// The review and list time of a row of `statement(keys:viewer:)`.
    private static func review(_ row: PostgresRandomAccessRow) throws -> (review: Review, listTime: Int64) {
        func value<T: PostgresDecodable>(_ column: Int, _ type: T.Type = T.self) throws -> T {
            try row[column].decode(T.self)
        }
        let photoIDs: [Int64] = try value(18)
        let widths: [Int] = try value(19)
        let heights: [Int] = try value(20)
        // Empty for a photo of the folder (an array of PostgreSQL cannot decode to optionals).
        let objectKeys: [String] = try value(25)
        let review = Review(
            id: try value(0),
            place: .init(id: try value(8), name: try value(9), lat: try value(10), lng: try value(11)),
            author: try PostgresUserRow.user(row, from: 12), rating: try value(1), title: try value(24),
            text: try value(2),
            photos: photoIDs.indices.map {
                Photo(
                    id: photoIDs[$0], width: widths[$0], height: heights[$0],
                    objectKey: objectKeys[$0].isEmpty ? nil : objectKeys[$0])
            },
            likeCount: try value(3), bookmarkCount: try value(4), commentCount: try value(5),
            likedByMe: try value(21), bookmarkedByMe: try value(22),
            createdAt: Timestamp(milliseconds: try value(6)), updatedAt: Timestamp(milliseconds: try value(7)))
        return (review, try value(23))
    }

    /// One review as `viewer` sees it, or `nil`: a hidden review only its author sees.
    static func review(id: Int64, viewer: Int64?, on connection: PostgresConnection, logger: Logger) async throws
        -> Review?
    {
        try await reviews(
            keys: """
                SELECT id, created_at FROM reviews WHERE id = \(id) AND (hidden_at IS NULL OR author_id = \(viewer))
                """, viewer: viewer, on: connection, logger: logger
        ).first?.review
    }

    /// A page of reviews from a keys query that selects up to `limit + 1` (id, list time) in list
    /// order: the extra one only says that more follow.
    static func reviewPage(
        keys: PostgresQuery, limit: Int, viewer: Int64?, preparedAs text: (any PreparedText.Type)? = nil,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> KeysetPage<Review> {
        let rows = try await reviews(keys: keys, viewer: viewer, preparedAs: text, on: connection, logger: logger)
        return KeysetPage(rows: rows, limit: limit, item: \.review) {
            TimeKey(time: Timestamp(milliseconds: $0.listTime), id: $0.review.id)
        }
    }
}
