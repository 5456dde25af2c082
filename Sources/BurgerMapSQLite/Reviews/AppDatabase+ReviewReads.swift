import BurgerMapCore
import Foundation
import GRDB

extension AppDatabase {
    static let reviewSelect = """
        SELECT r.id, r.rating, r.text, r.like_count, r.bookmark_count, r.comment_count, r.created_at, r.updated_at,
               r.title, p.id AS place_id, p.name AS place_name, p.lat AS place_lat, p.lng AS place_lng,
               \(qualified(userColumns, by: "u"))
        FROM reviews AS r JOIN places AS p ON p.id = r.place_id JOIN users AS u ON u.id = r.author_id
        """

    /// The author's columns of `reviewSelect` (the last ones, as `userColumns` lists them), read as
    /// accounts read them.
    private static let authorScope = ScopeAdapter([
        "author": SuffixRowAdapter(fromIndex: 13)
    ])

    /// `?, ?, …` for an `IN (…)` list of `count` values.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }

    /// The reviews a query over `reviewSelect` returns, in its order, each with its photos and
    /// the viewer's own fields. Whatever the page size, that is three more queries for the whole
    /// page (photos, the viewer's likes, the viewer's bookmarks), never one per review.
    static func reviews(_ db: Database, sql: String, arguments: StatementArguments, viewer: Int64?) throws
        -> [Review]
    {
        var reviews = try Row.fetchAll(db, sql: sql, arguments: arguments, adapter: authorScope).map { row in
            Review(
                id: row["id"],
                place: .init(
                    id: row["place_id"], name: row["place_name"], lat: row["place_lat"], lng: row["place_lng"]),
                author: user(row.scopes["author"]!),
                rating: row["rating"], title: row["title"], text: row["text"], photos: [], likeCount: row["like_count"],
                bookmarkCount: row["bookmark_count"], commentCount: row["comment_count"], likedByMe: false,
                bookmarkedByMe: false, createdAt: Timestamp(milliseconds: row["created_at"]),
                updatedAt: Timestamp(milliseconds: row["updated_at"]))
        }
        guard !reviews.isEmpty else { return reviews }
        let ids = StatementArguments(reviews.map(\.id))
        let inList = placeholders(reviews.count)
        var photos: [Int64: [Photo]] = [:]
        for row in try Row.fetchAll(
            db,
            sql:
                """
                SELECT id, review_id, width, height, object_key FROM photos
                WHERE review_id IN (\(inList)) ORDER BY review_id, position
                """,
            arguments: ids)
        {
            photos[row["review_id"], default: []].append(
                Photo(id: row["id"], width: row["width"], height: row["height"], objectKey: row["object_key"]))
        }
        var liked: Set<Int64> = []
        var bookmarked: Set<Int64> = []
        if let viewer {
            let viewerAndIDs = [viewer] + ids
            liked = Set(
                try Int64.fetchAll(
                    db, sql: "SELECT review_id FROM review_likes WHERE user_id = ? AND review_id IN (\(inList))",
                    arguments: viewerAndIDs))
            bookmarked = Set(
                try Int64.fetchAll(
                    db, sql: "SELECT review_id FROM review_bookmarks WHERE user_id = ? AND review_id IN (\(inList))",
                    arguments: viewerAndIDs))
        }
        for index in reviews.indices {
            let id = reviews[index].id
            reviews[index].photos = photos[id] ?? []
            reviews[index].likedByMe = liked.contains(id)
            reviews[index].bookmarkedByMe = bookmarked.contains(id)
        }
        return reviews
    }

    /// The reviews with these ids, in the order of `ids` (ids of deleted reviews are left out).
    public static func reviews(_ db: Database, ids: [Int64], viewer: Int64?) throws -> [Review] {
        guard !ids.isEmpty else { return [] }
        let found = try reviews(
            db, sql: "\(reviewSelect) WHERE r.id IN (\(placeholders(ids.count)))", arguments: StatementArguments(ids),
            viewer: viewer)
        let byID = Dictionary(uniqueKeysWithValues: found.map { ($0.id, $0) })
        return ids.compactMap { byID[$0] }
    }

    /// A page of reviews from `limit + 1` rows of review ids (column `id`) and list times
    /// (column `time`), loaded as `viewer` sees them, in the rows' order.
    static func reviewPage(_ db: Database, keys: [Row], id: String, time: String, limit: Int, viewer: Int64?) throws
        -> KeysetPage<Review>
    {
        let page = KeysetPage(
            rows: keys, limit: limit, item: { $0[id] as Int64 },
            key: { TimeKey(time: Timestamp(milliseconds: $0[time]), id: $0[id]) })
        return KeysetPage(items: try reviews(db, ids: page.items, viewer: viewer), next: page.next)
    }

    /// One review as `viewer` sees it: a hidden review only its author sees.
    static func review(_ db: Database, id: Int64, viewer: Int64?) throws -> Review? {
        try reviews(
            db, sql: "\(reviewSelect) WHERE r.id = ? AND (r.hidden_at IS NULL OR r.author_id = ?)",
            arguments: [id, viewer], viewer: viewer
        ).first
    }

    /// The ids of the reviews a moderator or enough reports hid, but the viewer's own: one
    /// non-correlated subquery over the partial index `reviews_hidden` (empty when nothing is
    /// hidden), so list queries keep their covering indexes. Takes the viewer as its argument.
    static let hiddenReviews = "(SELECT id FROM reviews WHERE hidden_at IS NOT NULL AND author_id IS NOT ?)"

    /// One review as `viewer` sees it, or `nil`.
    public func review(id: Int64, viewer: Int64?) async throws -> Review? {
        try await measured("review") {
            try await read { db in try Self.review(db, id: id, viewer: viewer) }
        }
    }

    /// One page of a newest-first review list, starting strictly after `after`.
    public func reviews(_ scope: ReviewListScope, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Review>
    {
        try await measured("reviews") {
            try await read { db in
                let (filter, arguments): (String, [any DatabaseValueConvertible]) =
                    switch scope {
                    case .all: ("1", [])
                    case .place(let id): ("r.place_id = ?", [id])
                    case .author(let id): ("r.author_id = ?", [id])
                    }
                // The viewer's blocks, both ways, hide reviews (none without a viewer), and so
                // does moderation (but not from the author).
                let query = KeysetOrder.newestFirst.query(
                    Self.reviewSelect,
                    where:
                        "\(filter) AND \(Self.notBlocked("r.author_id")) AND (r.hidden_at IS NULL OR r.author_id = ?)",
                    arguments + [viewer, viewer, viewer, viewer], time: "r.created_at", id: "r.id", after: after,
                    limit: limit)
                let page = try Self.reviews(db, sql: query.sql, arguments: query.arguments, viewer: viewer)
                return KeysetPage(rows: page, limit: limit, item: { $0 }, key: \.listKey)
            }
        }
    }

    /// Whether a user exists (lists of a missing user's things are `404`, not empty).
    public func userExists(id: Int64) async throws -> Bool {
        try await pool.read { db in try Self.userExists(db, id: id) }
    }

    static func userExists(_ db: Database, id: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [id]) == true
    }

    /// Whether a review exists and `viewer` may see it.
    public func reviewVisible(id: Int64, viewer: Int64?) async throws -> Bool {
        try await pool.read { db in try Self.reviewVisible(db, id: id, viewer: viewer) }
    }

    static func reviewVisible(_ db: Database, id: Int64, viewer: Int64?) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT 1 FROM reviews WHERE id = ? AND (hidden_at IS NULL OR author_id = ?)",
            arguments: [id, viewer]) == true
    }

    static func reviewExists(_ db: Database, id: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM reviews WHERE id = ?", arguments: [id]) == true
    }
}
