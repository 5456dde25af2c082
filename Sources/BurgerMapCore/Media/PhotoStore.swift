/// The photo rows as a whole: the start-up sweep of files that no row owns, and photos uploaded
/// ahead of the review they will belong to (the LookForRealBurger app uploads first, then
/// posts the review with the paths it got). Rows of reviews and avatars are written with the
/// review or avatar they belong to (`ReviewStore`, `AccountStore`).
public protocol PhotoStore: Sendable {
    /// The ids of every stored photo (pending ones included).
    func storedPhotoIDs() async throws -> Set<Int64>
    /// Of the ids of photos a crashed process had named its files after, those whose rows
    /// committed; the others are retired, so that no later photo is given one of them (their
    /// URLs and ETags must never name other bytes).
    func settleStagedPhotoIDs(_ ids: [Int64]) async throws -> Set<Int64>
    /// Stores photos that `owner` uploaded for a review not written yet, in one transaction:
    /// the rows are written, then `beforeCommit` runs with their ids in order (the caller gives
    /// the files their final names there; if it throws, nothing is stored). Answers the ids.
    func addPendingPhotos(
        owner: Int64, photos: [PhotoSize], at time: Timestamp, beforeCommit: @Sendable ([Int64]) throws -> Void
    ) async throws -> [Int64]
    /// Deletes the rows of pending photos uploaded before `cutoff` (never attached) and
    /// answers their ids, whose files the caller removes.
    func removePendingPhotos(uploadedBefore cutoff: Timestamp) async throws -> [Int64]

    /// The object key of photo `id` (`PhotoObjectKey.resolved`), or `nil` when it has no row.
    func photoObjectKey(photoID id: Int64) async throws -> String?
    /// Of `keys` (resolved keys, at most `PhotoObjectSweep.batch`), those a photo row names.
    func photoObjectKeysInUse(_ keys: [String]) async throws -> Set<String>
    /// Up to `limit` keys of deleted photos whose objects are still to be removed, oldest first.
    /// Every deletion of a photo row queues its key in the same transaction (a trigger of both
    /// engines), so a process killed between the commit and the removal loses nothing.
    func queuedPhotoObjectDeletions(limit: Int) async throws -> [String]
    /// Takes keys off the deletion queue once the object store confirmed their removal.
    func confirmPhotoObjectDeletions(_ keys: [String]) async throws
}

/// The bounds of the work on photo objects that runs beside the requests.
public enum PhotoObjectSweep {
    /// Keys checked or removed per batch: one list page of an object store holds up to 1,000
    /// names, two per photo.
    public static let batch = 500
}

/// How long an uploaded photo waits for its review.
public enum PendingPhotos {
    /// 24 hours, in milliseconds: after that the photo and its files are deleted.
    public static let lifetime: Int64 = 24 * 3600 * 1000
}
