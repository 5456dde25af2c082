import BurgerMapCore
import Logging
import PostgresNIO

/// Comments, oldest first, with the owner rules of SQLite's `AppDatabase+Comments.swift`: the
/// author changes a comment; the author or the review's author deletes it.
extension PostgresSocialStore {
    /// The columns that make a `Comment` (the author's from column 5 on).
    static let commentSelect = """
        SELECT c.id, c.review_id, c.text, c.created_at, c.updated_at, \(PostgresUserRow.columns)
        FROM comments AS c JOIN users AS u ON u.id = c.author_id
        """

    /// Every comment a query over `commentSelect` returns, in its order.
    static func comments(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> [Comment] {
        var comments: [Comment] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            comments.append(
                Comment(
                    id: try row[0].decode(Int64.self), reviewID: try row[1].decode(Int64.self),
                    author: try PostgresUserRow.user(row, from: 5), text: try row[2].decode(String.self),
                    createdAt: Timestamp(milliseconds: try row[3].decode(Int64.self)),
                    updatedAt: Timestamp(milliseconds: try row[4].decode(Int64.self))))
        }
        return comments
    }

    private func comment(id: Int64, on connection: PostgresConnection) async throws -> Comment? {
        try await Self.comments(
            connection.query("\(unescaped: Self.commentSelect) WHERE c.id = \(id)", logger: logger)
        ).first
    }

    /// One comment as `viewer` sees it, or `nil`.
    public func comment(id: Int64, viewer: Int64?) async throws -> Comment? {
        try await Self.comments(
            pool.query(
                """
                \(unescaped: Self.commentSelect) JOIN reviews AS rv ON rv.id = c.review_id
                WHERE c.id = \(id) AND (c.hidden_at IS NULL OR c.author_id = \(viewer))
                    AND (rv.hidden_at IS NULL OR rv.author_id = \(viewer))
                """, logger: logger)
        ).first
    }

    /// A page of a review's comments, oldest first (ties by id), without those of users the
    /// viewer blocks or who block the viewer, and without hidden ones (but the viewer's own).
    public func comments(review reviewID: Int64, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Comment>
    {
        let (time, id) = PostgresKeyset.above(after)
        let rows = try await Self.comments(
            pool.query(
                """
                \(unescaped: Self.commentSelect)
                WHERE c.review_id = \(reviewID) AND (c.created_at, c.id) > (\(time), \(id))
                    AND (\(viewer)::bigint IS NULL OR (NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = c.author_id)
                        AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = c.author_id AND blocked_id = \(viewer))))
                    AND (c.hidden_at IS NULL OR c.author_id = \(viewer))
                    AND EXISTS (SELECT 1 FROM reviews AS rv WHERE rv.id = c.review_id
                        AND (rv.hidden_at IS NULL OR rv.author_id = \(viewer)))
                ORDER BY c.created_at, c.id LIMIT \(Int64(limit) + 1)
                """, logger: logger))
        return KeysetPage(rows: rows, limit: limit, item: { $0 }, key: \.listKey)
    }

    /// A page of a user's own comments, oldest first (ties by id).
    public func comments(author: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<Comment> {
        let (time, id) = PostgresKeyset.above(after)
        let rows = try await Self.comments(
            pool.query(
                """
                \(unescaped: Self.commentSelect)
                WHERE c.author_id = \(author) AND (c.created_at, c.id) > (\(time), \(id))
                ORDER BY c.created_at, c.id LIMIT \(Int64(limit) + 1)
                """, logger: logger))
        return KeysetPage(rows: rows, limit: limit, item: { $0 }, key: \.listKey)
    }

    /// Adds a comment (the review's count follows); `nil` when the review does not exist.
    public func addComment(review reviewID: Int64, author: Int64, text: String, at time: Timestamp) async throws
        -> Comment?
    {
        try await events.transaction(logger: logger) { connection in
            // KEY SHARE keeps the review until the comment is in (see `setReaction`).
            let review = try await connection.query(
                """
                SELECT author_id FROM reviews
                WHERE id = \(reviewID) AND (hidden_at IS NULL OR author_id = \(author)) FOR KEY SHARE
                """, logger: logger)
            var reviewAuthor: Int64?
            for try await value in review.decode(Int64.self) { reviewAuthor = value }
            guard let reviewAuthor else { return nil }
            let inserted = try await connection.query(
                """
                INSERT INTO comments (review_id, author_id, text, created_at, updated_at)
                VALUES (\(reviewID), \(author), \(text), \(time.milliseconds), \(time.milliseconds))
                RETURNING id
                """, logger: logger)
            var commentID: Int64?
            for try await id in inserted.decode(Int64.self) { commentID = id }
            guard let commentID else { throw StorageError.rowVanished("comments") }
            try await PostgresEventStore.record(
                SocialRules.commentCreated(commentID, by: author, on: reviewID, reviewAuthor: reviewAuthor),
                at: time, on: connection, logger: logger)
            return try await comment(id: commentID, on: connection)
        }
    }

    /// A comment's author and the author of its review, or `nil`, with one row locked: the
    /// comment, or (`lockingReview`) its review.
    ///
    /// A delete locks the review first, since deleting a comment updates the review's count: a
    /// review's delete locks the review and then deletes its comments, and the reverse order
    /// would deadlock with it.
    private func ownership(comment id: Int64, lockingReview: Bool, on connection: PostgresConnection) async throws
        -> (author: Int64, reviewAuthor: Int64, review: Int64)?
    {
        let rows = try await connection.query(
            """
            SELECT c.author_id, r.author_id, r.id FROM comments AS c JOIN reviews AS r ON r.id = c.review_id
            WHERE c.id = \(id) FOR NO KEY UPDATE OF \(unescaped: lockingReview ? "r" : "c")
            """, logger: logger)
        var found: (author: Int64, reviewAuthor: Int64, review: Int64)?
        for try await (author, reviewAuthor, review) in rows.decode((Int64, Int64, Int64).self) {
            found = (author, reviewAuthor, review)
        }
        return found
    }

    /// Changes the text of the caller's own comment.
    public func updateComment(id: Int64, by userID: Int64, text: String, at time: Timestamp) async throws
        -> OwnerOnlyChange<Comment>
    {
        try await events.transaction(logger: logger) { connection in
            guard let owner = try await ownership(comment: id, lockingReview: false, on: connection) else {
                return .notFound
            }
            guard SocialRules.mayEdit(comment: owner.author, user: userID) else { return .forbidden }
            try await connection.query(
                "UPDATE comments SET text = \(text), updated_at = \(time.milliseconds) WHERE id = \(id)",
                logger: logger)
            try await PostgresEventStore.record(
                SocialRules.commentEdited(id, by: userID, on: owner.review, author: owner.author),
                at: time, on: connection, logger: logger)
            guard let comment = try await comment(id: id, on: connection) else { return .notFound }
            return .done(comment)
        }
    }

    /// Deletes a comment: its author or the review's author may.
    public func deleteComment(id: Int64, by userID: Int64) async throws -> OwnerOnlyChange<Void> {
        try await events.transaction(logger: logger) { connection in
            guard let owner = try await ownership(comment: id, lockingReview: true, on: connection) else {
                return .notFound
            }
            guard SocialRules.mayDelete(comment: owner.author, onReviewBy: owner.reviewAuthor, user: userID) else {
                return .forbidden
            }
            // The comment itself is not locked yet: a delete of it that committed meanwhile
            // leaves nothing to delete, and that is a 404, as on SQLite.
            let deleted = try await connection.query(
                "DELETE FROM comments WHERE id = \(id) RETURNING 1", logger: logger)
            guard try await PostgresRows.exist(deleted) else { return .notFound }
            try await PostgresEventStore.record(
                SocialRules.commentDeleted(id, by: userID, on: owner.review, author: owner.author),
                at: .now(), on: connection, logger: logger)
            return .done(())
        }
    }
}
