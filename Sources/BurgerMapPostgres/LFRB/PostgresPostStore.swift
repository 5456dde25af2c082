import BurgerMapCore
import Logging
import PostgresNIO

/// The LookForRealBurger routes' batched reads (`PostStore`), as on SQLite. Each is one
/// statement for the whole page: the ids travel as one array, and a LATERAL subquery per id
/// keeps each list's own order and limit on its index.
public struct PostgresPostStore: PostStore {
    let pool: PostgresPool
    let logger: Logger

    /// Places with an id above `afterID`, by id.
    public func places(afterID: Int64, limit: Int) async throws -> [Place] {
        try await PostgresPlaceStore.places(
            pool.query(
                """
                SELECT \(unescaped: PostgresPlaceStore.columns) FROM places WHERE id > \(afterID)
                ORDER BY id LIMIT \(Int64(limit))
                """, logger: logger))
    }

    /// The newest reviews of each place, as links.
    public func reviewLinks(places: [Int64], limit: Int, viewer: Int64?) async throws -> [Int64: [ReviewLink]] {
        guard !places.isEmpty else { return [:] }
        let rows = try await pool.query(
            """
            SELECT k.id, r.id, r.created_at, u.id, u.nickname
            FROM unnest(\(places)::bigint[]) AS k (id)
            CROSS JOIN LATERAL (
                SELECT id, created_at, author_id FROM reviews WHERE place_id = k.id
                    AND (\(viewer)::bigint IS NULL OR (NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = author_id)
                        AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = author_id AND blocked_id = \(viewer))))
                    AND (hidden_at IS NULL OR author_id = \(viewer))
                ORDER BY created_at DESC, id DESC LIMIT \(Int64(limit))) AS r
            JOIN users AS u ON u.id = r.author_id
            ORDER BY k.id, r.created_at DESC, r.id DESC
            """, logger: logger)
        var links: [Int64: [ReviewLink]] = [:]
        for try await (place, review, time, author, nickname) in rows.decode((Int64, Int64, Int64, Int64, String).self)
        {
            links[place, default: []].append(
                ReviewLink(
                    reviewID: review, createdAt: Timestamp(milliseconds: time), authorID: author,
                    authorNickname: nickname))
        }
        return links
    }

    /// The users with a reaction on each review, most recent first.
    public func reactingUsers(_ reaction: Reaction, reviews: [Int64], limit: Int) async throws -> [Int64: [Int64]] {
        guard !reviews.isEmpty else { return [:] }
        let table = reaction == .like ? "review_likes" : "review_bookmarks"
        let rows = try await pool.query(
            """
            SELECT k.id, x.user_id
            FROM unnest(\(reviews)::bigint[]) AS k (id)
            CROSS JOIN LATERAL (
                SELECT user_id, created_at FROM \(unescaped: table) WHERE review_id = k.id
                ORDER BY created_at DESC, user_id DESC LIMIT \(Int64(limit))) AS x
            ORDER BY k.id, x.created_at DESC, x.user_id DESC
            """, logger: logger)
        var users: [Int64: [Int64]] = [:]
        for try await (review, user) in rows.decode((Int64, Int64).self) { users[review, default: []].append(user) }
        return users
    }

    /// The newest comments of each review.
    public func comments(reviews: [Int64], limit: Int, viewer: Int64?) async throws -> [Int64: [Comment]] {
        guard !reviews.isEmpty else { return [:] }
        let comments = try await PostgresSocialStore.comments(
            pool.query(
                """
                SELECT c.id, c.review_id, c.text, c.created_at, c.updated_at, \(unescaped: PostgresUserRow.columns)
                FROM unnest(\(reviews)::bigint[]) AS k (id)
                CROSS JOIN LATERAL (
                    SELECT * FROM comments WHERE review_id = k.id
                        AND (\(viewer)::bigint IS NULL OR (NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = author_id)
                        AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = author_id AND blocked_id = \(viewer))))
                        AND (hidden_at IS NULL OR author_id = \(viewer))
                    ORDER BY created_at DESC, id DESC LIMIT \(Int64(limit))) AS c
                JOIN users AS u ON u.id = c.author_id
                ORDER BY c.review_id, c.created_at DESC, c.id DESC
                """, logger: logger))
        return Dictionary(grouping: comments, by: \.reviewID)
    }

    /// A user's newest review ids.
    public func reviewIDs(author: Int64, limit: Int, viewer: Int64?) async throws -> [Int64] {
        let rows = try await pool.query(
            """
            SELECT id FROM reviews WHERE author_id = \(author)
                AND (\(viewer)::bigint IS NULL OR (NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = author_id)
                        AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = author_id AND blocked_id = \(viewer))))
                AND (hidden_at IS NULL OR author_id = \(viewer))
            ORDER BY created_at DESC, id DESC LIMIT \(Int64(limit))
            """, logger: logger)
        var ids: [Int64] = []
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        return ids
    }
}
