import BurgerMapCore
import Foundation
import GRDB

extension AppDatabase {
    /// The answer kept for an earlier request with this key (see `IdempotencyStore`).
    public func keptAnswer(_ key: IdempotencyKey, at time: Timestamp = .now()) async throws -> StoredAnswer? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT status, body FROM idempotent_requests
                        WHERE user_id = ? AND key = ? AND created_at > ? AND status <> 0
                        """,
                    arguments: [key.userID, key.key, time.milliseconds - IdempotencyKey.lifetime])
            else { return nil }
            return StoredAnswer(status: row["status"], body: [UInt8](row["body"] as Data))
        }
    }

    /// Keeps the answer of the request that claimed `key` (see `IdempotencyStore`).
    public func keepAnswer(_ answer: StoredAnswer, for key: IdempotencyKey) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE idempotent_requests SET status = ?, body = ? WHERE user_id = ? AND key = ? AND status = 0",
                arguments: [answer.status, Data(answer.body), key.userID, key.key])
        }
    }

    /// Stores a review with its photos in one transaction (see `ReviewStore.storeReview`).
    public func storeReview(
        _ draft: ReviewDraft, photos: [PhotoSize], idempotency: IdempotencyKey?, at time: Timestamp = .now(),
        beforeCommit: @Sendable ([Int64]) throws -> Void
    ) async throws -> ReviewCreation {
        try await measured("create_review") {
            try await pool.write { db in
                if let idempotency {
                    // A claim younger than the key's lifetime: that request's review (its answer
                    // is kept beside it, or will be in a moment).
                    if let claim = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT review_id, fingerprint FROM idempotent_requests
                            WHERE user_id = ? AND key = ? AND created_at > ?
                            """,
                        arguments: [idempotency.userID, idempotency.key, time.milliseconds - IdempotencyKey.lifetime])
                    {
                        guard idempotency.matches(claimedWith: claim["fingerprint"]) else { return .keyReused }
                        return .replayed(reviewID: claim["review_id"])
                    }
                    try db.execute(
                        sql: "DELETE FROM idempotent_requests WHERE user_id = ? AND key = ?",
                        arguments: [idempotency.userID, idempotency.key])
                }
                guard
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM places WHERE id = ?", arguments: [draft.placeID]) == true
                else { return .placeMissing }
                try db.execute(
                    sql: """
                        INSERT INTO reviews (place_id, author_id, rating, title, text, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        draft.placeID, draft.authorID, draft.rating, draft.title, draft.text, time.milliseconds,
                        time.milliseconds,
                    ])
                let reviewID = db.lastInsertedRowID
                var photoIDs: [Int64] = []
                for (position, photo) in photos.enumerated() {
                    photoIDs.append(
                        try Self.insertPhoto(
                            db, photo, owner: draft.authorID, review: reviewID, position: position, at: time))
                }
                guard try Self.attachPendingPhotos(db, draft, review: reviewID, first: photos.count, at: time) else {
                    // Nothing of this request stays: the transaction rolls back.
                    throw PendingPhotosUnavailable()
                }
                try beforeCommit(photoIDs)
                try Self.refreshPlaceStats(db, placeID: draft.placeID)
                try self.recordEvent(
                    ReviewRules.created(reviewID, by: draft.authorID, place: draft.placeID), at: time, in: db)
                guard let review = try Self.review(db, id: reviewID, viewer: draft.authorID) else {
                    throw StorageError.rowVanished("review")
                }
                if let idempotency {
                    // The claim: status 0 until the answer is kept (`keepAnswer`).
                    try db.execute(
                        sql: """
                            INSERT INTO idempotent_requests
                                (user_id, key, status, body, created_at, review_id, fingerprint)
                            VALUES (?, ?, 0, x'', ?, ?, ?)
                            """,
                        arguments: [
                            idempotency.userID, idempotency.key, time.milliseconds, reviewID, idempotency.fingerprint,
                        ])
                }
                return .created(review)
            }
        }
    }

    static func insertPhoto(
        _ db: Database, _ photo: PhotoSize, owner: Int64, review: Int64?, position: Int, at time: Timestamp
    ) throws -> Int64 {
        try db.execute(
            sql:
                """
                INSERT INTO photos (owner_id, review_id, position, width, height, created_at, object_key)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [owner, review, position, photo.width, photo.height, time.milliseconds, photo.objectKey])
        return db.lastInsertedRowID
    }

    /// Recounts a place's reviews and rating sum and picks its cover (the first photo of its
    /// newest review with photos), so that they stay exact whatever changed.
    static func refreshPlaceStats(_ db: Database, placeID: Int64) throws {
        let cells = PlaceCellsTable(db)
        let before = try cells.member(id: placeID)
        try db.execute(
            sql: """
                UPDATE places SET
                    review_count = (SELECT count(*) FROM reviews WHERE place_id = ?1),
                    rating_sum = (SELECT coalesce(sum(rating), 0) FROM reviews WHERE place_id = ?1),
                    cover_photo_id = (
                        SELECT ph.id FROM reviews AS r JOIN photos AS ph ON ph.review_id = r.id
                        WHERE r.place_id = ?1 ORDER BY r.created_at DESC, r.id DESC, ph.position LIMIT 1)
                WHERE id = ?1
                """,
            arguments: [placeID])
        // A place that gained its first review or lost its last changes the reviewed counts.
        try cells.maintain(placeID: placeID, before: before)
    }

    /// The author of a review and its place, or `nil`.
    private static func reviewOwnership(_ db: Database, id: Int64) throws -> (author: Int64, place: Int64)? {
        try Row.fetchOne(db, sql: "SELECT author_id, place_id FROM reviews WHERE id = ?", arguments: [id]).map {
            ($0["author_id"], $0["place_id"])
        }
    }

    /// Changes the rating, title and/or text of the caller's own review (an empty title clears it).
    public func updateReview(
        id: Int64, by userID: Int64, rating: Int?, title: String?, text: String?, at time: Timestamp = .now()
    ) async throws -> OwnerOnlyChange<Review> {
        try await measured("update_review") {
            try await pool.write { db in
                guard let owner = try Self.reviewOwnership(db, id: id) else { return .notFound }
                guard owner.author == userID else { return .forbidden }
                try db.execute(
                    sql:
                        """
                        UPDATE reviews SET rating = coalesce(?, rating), text = coalesce(?, text),
                            title = CASE WHEN ?3 IS NULL THEN title ELSE nullif(?3, '') END, updated_at = ? WHERE id = ?
                        """,
                    arguments: [rating, text, title, time.milliseconds, id])
                try Self.refreshPlaceStats(db, placeID: owner.place)
                try self.recordEvent(
                    ReviewRules.edited(id, by: userID, place: owner.place),
                    at: time, in: db)
                guard let review = try Self.review(db, id: id, viewer: userID) else { return .notFound }
                return .done(review)
            }
        }
    }

    /// Deletes the caller's own review with its photo rows (and, by cascade, what hangs on it);
    /// answers the photo ids whose files the caller then removes.
    public func deleteReview(id: Int64, by userID: Int64) async throws -> OwnerOnlyChange<[Int64]> {
        try await measured("delete_review") {
            try await pool.write { db in
                guard let owner = try Self.reviewOwnership(db, id: id) else { return .notFound }
                guard owner.author == userID else { return .forbidden }
                let photoIDs = try Int64.fetchAll(db, sql: "SELECT id FROM photos WHERE review_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM reviews WHERE id = ?", arguments: [id])
                try Self.refreshPlaceStats(db, placeID: owner.place)
                try self.recordEvent(
                    ReviewRules.deleted(id, by: userID, place: owner.place),
                    at: .now(), in: db)
                return .done(photoIDs)
            }
        }
    }
}
