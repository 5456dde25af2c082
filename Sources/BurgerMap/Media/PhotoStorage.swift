import BurgerMapCore
import Foundation

/// Where photo images live: the photo folder (`PhotoFolder`, the default) or an S3-compatible
/// bucket (`PhotoBucket`). Both follow one order, so that no URL ever serves bytes whose row a
/// crash rolled back and no failed write leaves images behind for long:
/// 1. `stage` writes both images of a processed photo before its row exists;
/// 2. `install` runs inside the transaction that writes the row, just before it commits;
/// 3. `publish` runs once it committed; `discard`/`discardInstalled` when it did not.
/// A process killed between the steps leaves images that the store's sweep removes (or, for a
/// committed row, publishes).
public protocol PhotoStorage: Sendable {
    /// Writes both images of a processed photo where they wait for their row.
    func stage(_ photo: ProcessedPhoto) async throws -> StagedPhoto
    /// The `beforeCommit` step of a store write: ties staged photos to their new rows' ids,
    /// noting each in `installed`.
    func install(_ staged: [StagedPhoto], as photoIDs: [Int64], noting installed: InstalledPhotos) throws
    /// Makes installed photos, whose rows committed, readable under their ids.
    func publish(_ installed: [InstalledPhoto]) async throws
    /// Removes the images of a staged photo that no row took.
    func discard(_ staged: StagedPhoto) async
    /// Removes the images of installed photos whose rows did not commit.
    func discardInstalled(_ installed: [InstalledPhoto]) async
    /// Removes the images of photos whose rows are gone. Whatever this misses, the deletion
    /// queue that every engine fills in the deleting transaction finishes (`PhotoObjectJanitor`).
    func remove(photoIDs: [Int64]) async
    /// Removes the images of the deleted photos whose keys the deletion queue names
    /// (`PhotoObjectKey`); throws when the store does not confirm, and the keys stay queued.
    func removeObjects(keys: [String]) async throws
    /// The full-size image of a photo, whole (the account export), or `nil` when it is gone.
    func fullImage(photoID: Int64, rows: (any PhotoStore)?) async throws -> [UInt8]?
    /// Tries one small write; answers the fault that stops photo writes, or `nil`.
    func probeWrite() async -> StorageFault?
    /// What `/health` says of the store (`"ok"` while it works).
    var state: PhotoStoreState { get }
}

/// How a photo store is doing, as `/health` names it: every instance shares the store, so its
/// trouble is told in the body of a `200`, never by taking instances out.
public enum PhotoStoreState: String, Sendable {
    case ok
    /// The object store does not answer (connection refused, timeouts).
    case unreachable
    /// The object store answers but refuses the service's key.
    case denied
}

/// A processed photo written before its row: under a random name in the folder's `incoming/`,
/// or under its random object key in a bucket.
public struct StagedPhoto: Sendable {
    /// A random name: the folder's staging file name, or the bucket's object key.
    var name: String
    var width: Int
    var height: Int
    /// The object key its row records (`nil` in the folder, whose files take the row's id).
    var objectKey: String?
    /// When its images were written: a bucket refuses to install images older than half the
    /// sweep's grace (`PhotoBucket.install`).
    var stagedAt = ContinuousClock.now

    /// What the photo's row keeps.
    var size: PhotoSize { PhotoSize(width: width, height: height, objectKey: objectKey) }
}

/// A staged photo tied to its row's id in the writing transaction.
public struct InstalledPhoto: Sendable {
    public var photoID: Int64
    var staged: StagedPhoto
}
