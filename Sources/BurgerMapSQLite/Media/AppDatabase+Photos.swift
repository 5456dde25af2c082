import BurgerMapCore
import GRDB

extension AppDatabase {
    /// Makes a new photo the user's avatar (see `AccountStore.replaceAvatar`).
    public func replaceAvatar(
        userID: Int64, photo: PhotoSize, at time: Timestamp = .now(), beforeCommit: @Sendable (Int64) throws -> Void
    ) async throws -> (user: User, replaced: Int64?)? {
        try await measured("replace_avatar") {
            try await pool.write { db in
                guard
                    let previous = try Row.fetchOne(
                        db, sql: "SELECT avatar_photo_id FROM users WHERE id = ?", arguments: [userID])
                else { return nil }
                let replaced: Int64? = previous["avatar_photo_id"]
                let photoID = try Self.insertPhoto(db, photo, owner: userID, review: nil, position: 0, at: time)
                try beforeCommit(photoID)
                try db.execute(
                    sql: "UPDATE users SET avatar_photo_id = ?, updated_at = ? WHERE id = ?",
                    arguments: [photoID, time.milliseconds, userID])
                if let replaced { try db.execute(sql: "DELETE FROM photos WHERE id = ?", arguments: [replaced]) }
                try self.recordEvent(AccountRules.avatarChanged(userID), at: time, in: db)
                guard let user = try Self.user(db, id: userID) else { throw StorageError.rowVanished("user") }
                return (user, replaced)
            }
        }
    }

    /// The ids of every stored photo.
    public func storedPhotoIDs() async throws -> Set<Int64> {
        try await pool.read { db in Set(try Int64.fetchAll(db, sql: "SELECT id FROM photos")) }
    }

    /// The ids among `ids` that have rows; the highest id is made the floor of new photo ids
    /// (SQLite's AUTOINCREMENT counter rolls back with a transaction a crash interrupted).
    public func settleStagedPhotoIDs(_ ids: [Int64]) async throws -> Set<Int64> {
        guard let highest = ids.max() else { return [] }
        return try await pool.write { db in
            try db.execute(
                sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'photos'", arguments: [highest])
            if db.changesCount == 0 {
                try db.execute(
                    sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('photos', ?)", arguments: [highest])
            }
            return Set(
                try Int64.fetchAll(
                    db, sql: "SELECT id FROM photos WHERE id IN (\(Self.placeholders(ids.count)))",
                    arguments: StatementArguments(ids)))
        }
    }

    /// Stores photos uploaded ahead of their review (see `PhotoStore.addPendingPhotos`).
    public func addPendingPhotos(
        owner: Int64, photos: [PhotoSize], at time: Timestamp = .now(), beforeCommit: @Sendable ([Int64]) throws -> Void
    ) async throws -> [Int64] {
        try await measured("add_pending_photos") {
            try await pool.write { db in
                var ids: [Int64] = []
                for (position, photo) in photos.enumerated() {
                    let id = try Self.insertPhoto(db, photo, owner: owner, review: nil, position: position, at: time)
                    try db.execute(
                        sql: "INSERT INTO pending_photos (photo_id, created_at) VALUES (?, ?)",
                        arguments: [id, time.milliseconds])
                    ids.append(id)
                }
                try beforeCommit(ids)
                return ids
            }
        }
    }

    /// Deletes pending photos uploaded before `cutoff` and answers their ids.
    public func removePendingPhotos(uploadedBefore cutoff: Timestamp) async throws -> [Int64] {
        try await measured("remove_pending_photos") {
            try await pool.write { db in
                let ids = try Int64.fetchAll(
                    db, sql: "SELECT photo_id FROM pending_photos WHERE created_at < ?",
                    arguments: [cutoff.milliseconds])
                guard !ids.isEmpty else { return [] }
                // The pending rows go with their photos (ON DELETE CASCADE).
                try db.execute(
                    sql: "DELETE FROM photos WHERE id IN (\(Self.placeholders(ids.count)))",
                    arguments: StatementArguments(ids))
                return ids
            }
        }
    }

    /// Attaches `draft`'s pending photos to a new review, after its `first` own photos; `false`
    /// (and nothing changed) when one is not the author's, not pending, or expired.
    static func attachPendingPhotos(
        _ db: Database, _ draft: ReviewDraft, review reviewID: Int64, first: Int, at time: Timestamp
    ) throws -> Bool {
        for (offset, photoID) in draft.pendingPhotoIDs.enumerated() {
            try db.execute(
                sql: """
                    DELETE FROM pending_photos WHERE photo_id = ? AND created_at > ?
                        AND photo_id IN (SELECT id FROM photos WHERE owner_id = ?)
                    """,
                arguments: [photoID, time.milliseconds - PendingPhotos.lifetime, draft.authorID])
            guard db.changesCount == 1 else { return false }
            try db.execute(
                sql: "UPDATE photos SET review_id = ?, position = ? WHERE id = ?",
                arguments: [reviewID, first + offset, photoID])
        }
        return true
    }

    /// The object key of photo `id`, or `nil` when it has no row.
    public func photoObjectKey(photoID id: Int64) async throws -> String? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT object_key FROM photos WHERE id = ?", arguments: [id])
            else { return nil }
            return PhotoObjectKey.resolved(photoID: id, objectKey: row["object_key"])
        }
    }

    /// Of `keys`, those a photo row names: its own key, or its id when it has none.
    public func photoObjectKeysInUse(_ keys: [String]) async throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        let ids = keys.compactMap(PhotoObjectKey.photoID(ofKey:))
        return try await pool.read { db in
            var found = Set(
                try String.fetchAll(
                    db, sql: "SELECT object_key FROM photos WHERE object_key IN (\(Self.placeholders(keys.count)))",
                    arguments: StatementArguments(keys)))
            if !ids.isEmpty {
                for id in try Int64.fetchAll(
                    db,
                    sql: "SELECT id FROM photos WHERE object_key IS NULL AND id IN (\(Self.placeholders(ids.count)))",
                    arguments: StatementArguments(ids))
                {
                    found.insert(String(id))
                }
            }
            return found
        }
    }

    /// The oldest keys waiting on the deletion queue.
    public func queuedPhotoObjectDeletions(limit: Int) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT object_key FROM photo_object_deletions ORDER BY queued_at, object_key LIMIT ?",
                arguments: [limit])
        }
    }

    /// Takes removed objects' keys off the deletion queue.
    public func confirmPhotoObjectDeletions(_ keys: [String]) async throws {
        guard !keys.isEmpty else { return }
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM photo_object_deletions WHERE object_key IN (\(Self.placeholders(keys.count)))",
                arguments: StatementArguments(keys))
        }
    }
}
