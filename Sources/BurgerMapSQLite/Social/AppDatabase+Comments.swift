import BurgerMapCore
import GRDB

extension AppDatabase {
    static let commentSelect = """
        SELECT c.id, c.review_id, c.text, c.created_at, c.updated_at, \(qualified(userColumns, by: "u"))
        FROM comments AS c JOIN users AS u ON u.id = c.author_id
        """

    /// The author's columns of `commentSelect` (after the five comment columns).
    private static let commentAuthorScope = ScopeAdapter(["author": SuffixRowAdapter(fromIndex: 5)])

    static func comments(_ db: Database, sql: String, arguments: StatementArguments) throws -> [Comment] {
        try Row.fetchAll(db, sql: sql, arguments: arguments, adapter: commentAuthorScope).map { row in
            Comment(
                id: row["id"], reviewID: row["review_id"], author: user(row.scopes["author"]!), text: row["text"],
                createdAt: Timestamp(milliseconds: row["created_at"]),
                updatedAt: Timestamp(milliseconds: row["updated_at"]))
        }
    }

    private static func comment(_ db: Database, id: Int64) throws -> Comment? {
        try comments(db, sql: "\(commentSelect) WHERE c.id = ?", arguments: [id]).first
    }

    /// One comment as `viewer` sees it, or `nil`.
    public func comment(id: Int64, viewer: Int64?) async throws -> Comment? {
        try await measured("comment") {
            try await pool.read { db in
                try Self.comments(
                    db,
                    sql: """
                        \(Self.commentSelect) JOIN reviews AS rv ON rv.id = c.review_id
                        WHERE c.id = ? AND (c.hidden_at IS NULL OR c.author_id = ?) AND (rv.hidden_at IS NULL OR rv.author_id = ?)
                        """, arguments: [id, viewer, viewer]
                ).first
            }
        }
    }

    /// A page of a review's comments, oldest first (ties by id), without those of users the
    /// viewer blocks or who block the viewer, and without hidden ones (but the viewer's own).
    public func comments(review reviewID: Int64, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Comment>
    {
        try await measured("comments") {
            try await read { db in
                let query = KeysetOrder.oldestFirst.query(
                    Self.commentSelect,
                    where: """
                        c.review_id = ? AND \(Self.notBlocked("c.author_id"))
                            AND (c.hidden_at IS NULL OR c.author_id = ?)
                            AND EXISTS (SELECT 1 FROM reviews AS rv WHERE rv.id = c.review_id
                                AND (rv.hidden_at IS NULL OR rv.author_id = ?))
                        """,
                    [reviewID, viewer, viewer, viewer, viewer, viewer], time: "c.created_at", id: "c.id", after: after,
                    limit: limit)
                let rows = try Self.comments(db, sql: query.sql, arguments: query.arguments)
                return KeysetPage(rows: rows, limit: limit, item: { $0 }, key: \.listKey)
            }
        }
    }

    /// A page of a user's own comments, oldest first (ties by id).
    public func comments(author: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<Comment> {
        try await measured("comments_by_author") {
            try await pool.read { db in
                let query = KeysetOrder.oldestFirst.query(
                    Self.commentSelect, where: "c.author_id = ?", [author], time: "c.created_at", id: "c.id",
                    after: after, limit: limit)
                let rows = try Self.comments(db, sql: query.sql, arguments: query.arguments)
                return KeysetPage(rows: rows, limit: limit, item: { $0 }, key: \.listKey)
            }
        }
    }

    /// Adds a comment to a review (its count follows in the same statement); `nil` when the
    /// review does not exist (any more).
    public func addComment(review reviewID: Int64, author: Int64, text: String, at time: Timestamp = .now())
        async throws -> Comment?
    {
        try await measured("add_comment") {
            try await pool.write { db in
                guard try Self.reviewVisible(db, id: reviewID, viewer: author) else { return nil }
                try db.execute(
                    sql:
                        "INSERT INTO comments (review_id, author_id, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [reviewID, author, text, time.milliseconds, time.milliseconds])
                let commentID = db.lastInsertedRowID
                guard
                    let reviewAuthor = try Int64.fetchOne(
                        db, sql: "SELECT author_id FROM reviews WHERE id = ?", arguments: [reviewID])
                else { throw StorageError.rowVanished("reviews") }
                try self.recordEvent(
                    SocialRules.commentCreated(commentID, by: author, on: reviewID, reviewAuthor: reviewAuthor),
                    at: time, in: db)
                return try Self.comment(db, id: commentID)
            }
        }
    }

    /// The comment's author, its review and the review's author, or `nil`.
    private static func commentOwnership(_ db: Database, id: Int64) throws
        -> (author: Int64, review: Int64, reviewAuthor: Int64)?
    {
        try Row.fetchOne(
            db,
            sql: """
                SELECT c.author_id, c.review_id, r.author_id AS review_author
                FROM comments AS c JOIN reviews AS r ON r.id = c.review_id WHERE c.id = ?
                """,
            arguments: [id]
        ).map { ($0["author_id"], $0["review_id"], $0["review_author"]) }
    }

    /// Changes the text of the caller's own comment; anyone else's is `.forbidden`.
    public func updateComment(id: Int64, by userID: Int64, text: String, at time: Timestamp = .now()) async throws
        -> OwnerOnlyChange<Comment>
    {
        try await measured("update_comment") {
            try await pool.write { db in
                guard let owner = try Self.commentOwnership(db, id: id) else { return .notFound }
                guard SocialRules.mayEdit(comment: owner.author, user: userID) else { return .forbidden }
                try db.execute(
                    sql: "UPDATE comments SET text = ?, updated_at = ? WHERE id = ?",
                    arguments: [text, time.milliseconds, id])
                try self.recordEvent(
                    SocialRules.commentEdited(id, by: userID, on: owner.review, author: owner.author), at: time, in: db)
                guard let comment = try Self.comment(db, id: id) else { return .notFound }
                return .done(comment)
            }
        }
    }

    /// Deletes a comment: its author may, and so may the author of the review it is on.
    public func deleteComment(id: Int64, by userID: Int64) async throws -> OwnerOnlyChange<Void> {
        try await measured("delete_comment") {
            try await pool.write { db in
                guard let owner = try Self.commentOwnership(db, id: id) else { return .notFound }
                guard SocialRules.mayDelete(comment: owner.author, onReviewBy: owner.reviewAuthor, user: userID) else {
                    return .forbidden
                }
                try db.execute(sql: "DELETE FROM comments WHERE id = ?", arguments: [id])
                try self.recordEvent(
                    SocialRules.commentDeleted(id, by: userID, on: owner.review, author: owner.author), at: .now(),
                    in: db)
                return .done(())
            }
        }
    }
}
