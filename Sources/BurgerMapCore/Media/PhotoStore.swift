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
}

/// How long an uploaded photo waits for its review.
public enum PendingPhotos {
    /// 24 hours, in milliseconds: after that the photo and its files are deleted.
    public static let lifetime: Int64 = 24 * 3600 * 1000
}
