import BurgerMapCore
import Foundation
import Logging
import PostgresNIO

/// Reviews and their photo rows in PostgreSQL, with the place counts and `Idempotency-Key`
/// answers that change with them; the same answers as the SQLite engine (`AppDatabase`).
///
/// Writes run at READ COMMITTED, so each one first locks the rows its later statements depend
/// on: the place whose counts it recounts (a recount that waited for another writer then starts
/// with a snapshot that holds that writer's review), and the review it changes.
public struct PostgresReviewStore: ReviewStore, IdempotencyStore {
    let pool: PostgresPool
    let logger: Logger
    /// Records the events of this store's writes, in their transactions.
    let events: PostgresEventStore

    /// One review as `viewer` sees it, or `nil`.
    public func review(id: Int64, viewer: Int64?) async throws -> Review? {
        try await pool.withConnection { connection in
            try await PostgresReviewReads.review(id: id, viewer: viewer, on: connection, logger: logger)
        }
    }

    /// Whether a review exists and `viewer` may see it.
    public func reviewVisible(id: Int64, viewer: Int64?) async throws -> Bool {
        try await PostgresRows.exist(
            pool.query(
                "SELECT 1 FROM reviews WHERE id = \(id) AND (hidden_at IS NULL OR author_id = \(viewer))",
                logger: logger))
    }

    /// The answer kept for an earlier request with this key (see `IdempotencyStore`).
    public func keptAnswer(_ key: IdempotencyKey, at time: Timestamp) async throws -> StoredAnswer? {
        let rows = try await pool.query(
            """
            SELECT status, body FROM idempotent_requests
            WHERE user_id = \(key.userID) AND key = \(key.key) AND status <> 0
                AND created_at > \(time.milliseconds - IdempotencyKey.lifetime)
            """, logger: logger)
        for try await (status, body) in rows.decode((Int, Data).self) {
            return StoredAnswer(status: status, body: [UInt8](body))
        }
        return nil
    }

    /// Keeps the answer of the request that claimed `key` (see `IdempotencyStore`).
    public func keepAnswer(_ answer: StoredAnswer, for key: IdempotencyKey) async throws {
        try await pool.query(
            """
            UPDATE idempotent_requests SET status = \(answer.status), body = \(Data(answer.body))
            WHERE user_id = \(key.userID) AND key = \(key.key) AND status = 0
            """, logger: logger)
    }

    /// Stores a review with its photos in one transaction (see `ReviewStore.storeReview`).
    public func storeReview(
        _ draft: ReviewDraft, photos: [PhotoSize], idempotency: IdempotencyKey?, at time: Timestamp,
        beforeCommit: @Sendable ([Int64]) throws -> Void
    ) async throws -> ReviewCreation {
        try await events.transaction(logger: logger) { connection in
            if let idempotency, let earlier = try await claim(idempotency, at: time, on: connection) {
                guard idempotency.matches(claimedWith: earlier.fingerprint) else { return .keyReused }
                return .replayed(reviewID: earlier.reviewID)
            }
            let place = try await connection.query(
                "SELECT 1 FROM places WHERE id = \(draft.placeID) FOR NO KEY UPDATE", logger: logger)
            guard try await PostgresRows.exist(place) else {
                // As on SQLite: an expired answer is gone, and no answer is kept for a missing place.
                if let idempotency { try await forget(idempotency, on: connection) }
                return .placeMissing
            }
            let inserted = try await connection.query(
                """
                INSERT INTO reviews (place_id, author_id, rating, title, text, created_at, updated_at)
                VALUES (\(draft.placeID), \(draft.authorID), \(draft.rating), \(draft.title), \(draft.text),
                    \(time.milliseconds), \(time.milliseconds))
                RETURNING id
                """, logger: logger)
            let reviewID = try await single(inserted, "reviews")
            var photoIDs: [Int64] = []
            for (position, photo) in photos.enumerated() {
                let row = try await connection.query(
                    """
                    INSERT INTO photos (owner_id, review_id, position, width, height, created_at, object_key)
                    VALUES (\(draft.authorID), \(reviewID), \(position), \(photo.width), \(photo.height),
                        \(time.milliseconds), \(photo.objectKey))
                    RETURNING id
                    """, logger: logger)
                photoIDs.append(try await single(row, "photos"))
            }
            guard
                try await PostgresPhotoStore.attachPendingPhotos(
                    draft, review: reviewID, first: photos.count, at: time, on: connection, logger: logger)
            else { throw PendingPhotosUnavailable() }
            try await refreshPlaceStats(placeID: draft.placeID, on: connection)
            try await PostgresEventStore.record(
                ReviewRules.created(reviewID, by: draft.authorID, place: draft.placeID),
                at: time, on: connection, logger: logger)
            try beforeCommit(photoIDs)
            guard
                let review = try await PostgresReviewReads.review(
                    id: reviewID, viewer: draft.authorID, on: connection, logger: logger)
            else { throw StorageError.rowVanished("reviews") }
            if let idempotency {
                // The claim names its review; the answer is kept after the commit (`keepAnswer`).
                try await connection.query(
                    """
                    UPDATE idempotent_requests
                    SET status = 0, body = '', review_id = \(reviewID), created_at = \(time.milliseconds),
                        fingerprint = \(idempotency.fingerprint)
                    WHERE user_id = \(idempotency.userID) AND key = \(idempotency.key)
                    """, logger: logger)
            }
            return .created(review)
        }
    }

    /// Makes this transaction the one that claims `key` (`nil`), or finds the earlier claim: its
    /// review (`nil` for a claim that kept only its answer) and the fingerprint it stored.
    ///
    /// A fresh key is claimed by inserting its row (which only this transaction sees, naming its
    /// review before the commit). A second request with the same key meanwhile, from any
    /// instance, waits in `ON CONFLICT` on that row until this transaction ends, then finds the
    /// claim and replays; if it rolled back, the second claims the key. An expired row is locked
    /// instead and overwritten at the end.
    private func claim(_ key: IdempotencyKey, at time: Timestamp, on connection: PostgresConnection) async throws
        -> (reviewID: Int64?, fingerprint: String?)?
    {
        // Twice at most: a row that vanishes between the two statements is claimed on the next turn.
        for _ in 0..<2 {
            let claimed = try await connection.query(
                """
                INSERT INTO idempotent_requests (user_id, key, status, body, created_at)
                VALUES (\(key.userID), \(key.key), 0, '', \(time.milliseconds))
                ON CONFLICT (user_id, key) DO NOTHING
                RETURNING 1
                """, logger: logger)
            if try await PostgresRows.exist(claimed) { return nil }
            let rows = try await connection.query(
                """
                SELECT review_id, created_at, fingerprint FROM idempotent_requests
                WHERE user_id = \(key.userID) AND key = \(key.key) FOR UPDATE
                """, logger: logger)
            for try await (reviewID, createdAt, fingerprint) in rows.decode((Int64?, Int64, String?).self) {
                guard createdAt > time.milliseconds - IdempotencyKey.lifetime else { return nil }
                return (reviewID, fingerprint)
            }
        }
        throw PostgresEngineError.server("the Idempotency-Key row kept vanishing")
    }

    /// Removes a key's row (its expired answer, or this transaction's placeholder).
    private func forget(_ key: IdempotencyKey, on connection: PostgresConnection) async throws {
        try await connection.query(
            "DELETE FROM idempotent_requests WHERE user_id = \(key.userID) AND key = \(key.key)", logger: logger)
    }

    /// The one value of a one-row, one-column answer (an id from `RETURNING`).
    private func single(_ rows: some AsyncSequence<PostgresRow, any Error>, _ table: String) async throws -> Int64 {
        for try await id in rows.decode(Int64.self) { return id }
        throw StorageError.rowVanished(table)
    }

    /// Recounts a place's reviews and rating sum and picks its cover (the first photo of its
    /// newest review with photos), as SQLite's `refreshPlaceStats`, so that they stay exact
    /// whatever changed. The caller holds the place's row lock.
    func refreshPlaceStats(placeID: Int64, on connection: PostgresConnection) async throws {
        // One statement answers the place before and after (the FROM reads the row as the
        // statement found it), so a review write that leaves the place reviewed or unreviewed
        // costs the cluster rows nothing.
        let rows = try await connection.query(
            """
            UPDATE places AS p SET
                review_count = (SELECT count(*) FROM reviews WHERE place_id = \(placeID)),
                rating_sum = (SELECT coalesce(sum(rating), 0) FROM reviews WHERE place_id = \(placeID)),
                cover_photo_id = (
                    SELECT ph.id FROM reviews AS r JOIN photos AS ph ON ph.review_id = r.id
                    WHERE r.place_id = \(placeID) ORDER BY r.created_at DESC, r.id DESC, ph.position LIMIT 1)
            FROM (SELECT review_count FROM places WHERE id = \(placeID)) AS old
            WHERE p.id = \(placeID)
            RETURNING p.cell, p.lat, p.lng, p.review_count, old.review_count
            """, logger: logger)
        for try await (key, lat, lng, reviews, reviewsBefore) in rows.decode((Int64, Double, Double, Int64, Int64).self)
        {
            let after = CellMember(id: placeID, key: key, lat: lat, lng: lng, reviewed: reviews > 0)
            var before = after
            before.reviewed = reviewsBefore > 0
            // A place that gained its first review or lost its last changes the reviewed counts.
            try await PostgresPlaceCells(connection: connection, logger: logger).maintain(from: before, to: after)
        }
    }

    /// Locks a review and answers its author and place, or `nil`.
    private func lockOwnership(review id: Int64, on connection: PostgresConnection) async throws
        -> (author: Int64, place: Int64)?
    {
        let rows = try await connection.query(
            "SELECT author_id, place_id FROM reviews WHERE id = \(id) FOR UPDATE", logger: logger)
        var found: (author: Int64, place: Int64)?
        for try await (author, place) in rows.decode((Int64, Int64).self) { found = (author, place) }
        return found
    }

    /// Locks a place whose counts a change recounts (always after the review's lock: one order,
    /// no deadlock between two changes).
    private func lockPlace(_ id: Int64, on connection: PostgresConnection) async throws {
        try await connection.query("SELECT 1 FROM places WHERE id = \(id) FOR NO KEY UPDATE", logger: logger)
    }

    /// Changes the rating, title and/or text of the caller's own review; the place's counts follow.
    public func updateReview(
        id: Int64, by userID: Int64, rating: Int?, title: String?, text: String?, at time: Timestamp
    ) async throws -> OwnerOnlyChange<Review> {
        try await events.transaction(logger: logger) { connection in
            guard let owner = try await lockOwnership(review: id, on: connection) else { return .notFound }
            guard owner.author == userID else { return .forbidden }
            try await lockPlace(owner.place, on: connection)
            try await connection.query(
                """
                UPDATE reviews SET rating = coalesce(\(rating.map(Int32.init)), rating), text = coalesce(\(text), text),
                    title = CASE WHEN \(title)::text IS NULL THEN title ELSE nullif(\(title), '') END,
                    updated_at = \(time.milliseconds)
                WHERE id = \(id)
                """, logger: logger)
            try await refreshPlaceStats(placeID: owner.place, on: connection)
            try await PostgresEventStore.record(
                ReviewRules.edited(id, by: userID, place: owner.place),
                at: time, on: connection, logger: logger)
            guard
                let review = try await PostgresReviewReads.review(
                    id: id, viewer: userID, on: connection, logger: logger)
            else { return .notFound }
            return .done(review)
        }
    }

    /// Deletes the caller's own review with its photo rows; answers the photo ids.
    public func deleteReview(id: Int64, by userID: Int64) async throws -> OwnerOnlyChange<[Int64]> {
        try await events.transaction(logger: logger) { connection in
            guard let owner = try await lockOwnership(review: id, on: connection) else { return .notFound }
            guard owner.author == userID else { return .forbidden }
            let rows = try await connection.query(
                "SELECT id FROM photos WHERE review_id = \(id) ORDER BY id", logger: logger)
            var photoIDs: [Int64] = []
            for try await photoID in rows.decode(Int64.self) { photoIDs.append(photoID) }
            // The place first: deleting the photos clears a cover that names one, on the place row.
            try await lockPlace(owner.place, on: connection)
            try await connection.query("DELETE FROM reviews WHERE id = \(id)", logger: logger)
            try await refreshPlaceStats(placeID: owner.place, on: connection)
            try await PostgresEventStore.record(
                ReviewRules.deleted(id, by: userID, place: owner.place),
                at: .now(), on: connection, logger: logger)
            return .done(photoIDs)
        }
    }
}
