import BurgerMap
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
                guard let user = try Self.user(db, id: userID) else { throw StorageError.rowVanished("user") }
                return (user, replaced)
            }
        }
    }

    /// The ids of every stored photo.
    public func storedPhotoIDs() async throws -> Set<Int64> {
        try await pool.read { db in Set(try Int64.fetchAll(db, sql: "SELECT id FROM photos")) }
    }
}
