import GRDB
import Synchronization

extension AppDatabase {
    /// Makes a staged photo the user's avatar, in one transaction with the rename of its files;
    /// answers the updated user and the replaced avatar's photo id (whose files the caller removes).
    func replaceAvatar(
        userID: Int64, photo: StagedPhoto, storage: PhotoStorage, installed: InstalledPhotos,
        at time: Timestamp = .now()
    ) async throws -> (user: User, replaced: Int64?)? {
        try await measured("replace_avatar") {
            try await pool.write { db in
                guard
                    let previous = try Row.fetchOne(
                        db, sql: "SELECT avatar_photo_id FROM users WHERE id = ?", arguments: [userID])
                else { return nil }
                let replaced: Int64? = previous["avatar_photo_id"]
                let photoID = try Self.insertPhoto(db, photo, owner: userID, review: nil, position: 0, at: time)
                try storage.install(photo, as: photoID)
                installed.append(photoID)
                try storage.flushFolder()
                try db.execute(
                    sql: "UPDATE users SET avatar_photo_id = ?, updated_at = ? WHERE id = ?",
                    arguments: [photoID, time.milliseconds, userID])
                if let replaced { try db.execute(sql: "DELETE FROM photos WHERE id = ?", arguments: [replaced]) }
                guard let user = try Self.user(db, id: userID) else { throw StorageError.rowVanished("user") }
                return (user, replaced)
            }
        }
    }

    /// Removes photo files that no row owns (left by a crash between rename and commit, or by
    /// rows deleted while the service was down) and everything still in `incoming/`. Run at
    /// start-up, before requests are served.
    public func sweepOrphanedPhotos(in storage: PhotoStorage) async throws -> Int {
        let stored = try await pool.read { db in Set(try Int64.fetchAll(db, sql: "SELECT id FROM photos")) }
        return try storage.sweep { stored.contains($0) }
    }
}

/// The photo ids a transaction gave final file names to, kept outside it so that the caller can
/// remove those files when the transaction fails.
final class InstalledPhotos: Sendable {
    private let ids = Mutex<[Int64]>([])

    func append(_ id: Int64) { ids.withLock { $0.append(id) } }
    var all: [Int64] { ids.withLock { $0 } }
}
