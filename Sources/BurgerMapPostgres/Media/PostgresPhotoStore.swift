import BurgerMapCore
import Logging
import PostgresNIO

/// The photo rows as a whole, for the start-up sweep of files that no row owns, and photos
/// uploaded ahead of their review (rows of reviews and avatars are written with them).
public struct PostgresPhotoStore: PhotoStore {
    let pool: PostgresPool
    let logger: Logger

    /// The ids of every stored photo.
    public func storedPhotoIDs() async throws -> Set<Int64> {
        var ids: Set<Int64> = []
        for try await id in try await pool.query("SELECT id FROM photos", logger: logger).decode(Int64.self) {
            ids.insert(id)
        }
        return ids
    }

    /// The ids among `ids` that have rows. An identity column's values are never handed out
    /// twice, even by a transaction that rolled back; the sequence is still moved past the
    /// highest id, as on SQLite, so that the rule holds for any id a folder names.
    public func settleStagedPhotoIDs(_ ids: [Int64]) async throws -> Set<Int64> {
        guard let highest = ids.max() else { return [] }
        try await pool.query(
            """
            SELECT setval(sequence, GREATEST(\(highest), nextval(sequence)))
            FROM pg_get_serial_sequence('photos', 'id') AS sequence
            """, logger: logger)
        var found: Set<Int64> = []
        let rows = try await pool.query("SELECT id FROM photos WHERE id = ANY(\(ids))", logger: logger)
        for try await id in rows.decode(Int64.self) { found.insert(id) }
        return found
    }

    /// Stores photos uploaded ahead of their review (see `PhotoStore.addPendingPhotos`).
    public func addPendingPhotos(
        owner: Int64, photos: [PhotoSize], at time: Timestamp, beforeCommit: @Sendable ([Int64]) throws -> Void
    ) async throws -> [Int64] {
        try await pool.transaction(logger: logger) { connection in
            var ids: [Int64] = []
            for (position, photo) in photos.enumerated() {
                let rows = try await connection.query(
                    """
                    WITH photo AS (
                        INSERT INTO photos (owner_id, review_id, position, width, height, created_at, object_key)
                        VALUES (\(owner), NULL, \(position), \(photo.width), \(photo.height), \(time.milliseconds),
                            \(photo.objectKey))
                        RETURNING id)
                    INSERT INTO pending_photos (photo_id, created_at) SELECT id, \(time.milliseconds) FROM photo
                    RETURNING photo_id
                    """, logger: logger)
                for try await id in rows.decode(Int64.self) { ids.append(id) }
            }
            guard ids.count == photos.count else { throw StorageError.rowVanished("photos") }
            try beforeCommit(ids)
            return ids
        }
    }

    /// Deletes pending photos uploaded before `cutoff` and answers their ids.
    public func removePendingPhotos(uploadedBefore cutoff: Timestamp) async throws -> [Int64] {
        // The pending rows go with their photos (ON DELETE CASCADE).
        let rows = try await pool.query(
            """
            DELETE FROM photos WHERE id IN (SELECT photo_id FROM pending_photos WHERE created_at < \(cutoff.milliseconds))
            RETURNING id
            """, logger: logger)
        var ids: [Int64] = []
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        return ids
    }

    /// Attaches `draft`'s pending photos to a new review, after its `first` own photos; `false`
    /// when one is not the author's, not pending, or expired (the caller then rolls back).
    static func attachPendingPhotos(
        _ draft: ReviewDraft, review reviewID: Int64, first: Int, at time: Timestamp,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        for (offset, photoID) in draft.pendingPhotoIDs.enumerated() {
            // The DELETE locks the pending row: two reviews that claim one photo cannot both have it.
            let rows = try await connection.query(
                """
                WITH taken AS (
                    DELETE FROM pending_photos WHERE photo_id = \(photoID)
                        AND created_at > \(time.milliseconds - PendingPhotos.lifetime)
                        AND photo_id IN (SELECT id FROM photos WHERE owner_id = \(draft.authorID))
                    RETURNING photo_id)
                UPDATE photos SET review_id = \(reviewID), position = \(first + offset)
                WHERE id IN (SELECT photo_id FROM taken)
                RETURNING id
                """, logger: logger)
            var attached = false
            for try await _ in rows.decode(Int64.self) { attached = true }
            guard attached else { return false }
        }
        return true
    }

    /// The object key of photo `id`, or `nil` when it has no row.
    public func photoObjectKey(photoID id: Int64) async throws -> String? {
        let rows = try await pool.query(
            "SELECT COALESCE(object_key, id::text) FROM photos WHERE id = \(id)", logger: logger)
        for try await key in rows.decode(String.self) { return key }
        return nil
    }

    /// Of `keys`, those a photo row names: its own key, or its id when it has none.
    public func photoObjectKeysInUse(_ keys: [String]) async throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        let ids = keys.compactMap(PhotoObjectKey.photoID(ofKey:))
        let rows = try await pool.query(
            """
            SELECT object_key FROM photos WHERE object_key = ANY(\(keys))
            UNION ALL
            SELECT id::text FROM photos WHERE object_key IS NULL AND id = ANY(\(ids))
            """, logger: logger)
        var found: Set<String> = []
        for try await key in rows.decode(String.self) { found.insert(key) }
        return found
    }

    /// The oldest keys waiting on the deletion queue.
    public func queuedPhotoObjectDeletions(limit: Int) async throws -> [String] {
        let rows = try await pool.query(
            "SELECT object_key FROM photo_object_deletions ORDER BY queued_at, object_key LIMIT \(limit)",
            logger: logger)
        var keys: [String] = []
        for try await key in rows.decode(String.self) { keys.append(key) }
        return keys
    }

    /// Takes removed objects' keys off the deletion queue.
    public func confirmPhotoObjectDeletions(_ keys: [String]) async throws {
        guard !keys.isEmpty else { return }
        try await pool.query("DELETE FROM photo_object_deletions WHERE object_key = ANY(\(keys))", logger: logger)
    }
}
