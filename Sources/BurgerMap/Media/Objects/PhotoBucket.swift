import BurgerMapCore
import BurgerMapObjectStorage
import Crypto
import Foundation
import Logging
import NIOCore

/// Photo images in an S3-compatible bucket (`--photo-store s3://BUCKET[/PREFIX]`), shared by
/// every instance: `<prefix>/<key>.jpg` and `<prefix>/<key>.thumb.jpg` for each photo
/// (`PhotoObjectKey`).
///
/// The images of a new photo are written under a random key before its row exists, and the
/// row records the key, so an object never needs renaming and no one can name an object whose
/// row has not committed. A write that does not commit leaves objects that the request removes,
/// or, if it cannot (the process killed, the store away), the sweep after
/// `--photo-sweep-grace` (`PhotoObjectJanitor`). A deleted row queues its key in the deleting
/// transaction; the janitor removes the objects until the store confirms.
///
/// Every object carries `Content-Type`, the immutable `Cache-Control` of `/v1/photos`, and the
/// hex SHA-256 of its bytes as `x-amz-meta-sha256` (whose first 128 bits are the `ETag` the
/// service answers, the same one the folder gives, so a migration changes no tag).
public final class PhotoBucket: PhotoStorage {
    public let client: S3Client
    /// The folder-like prefix of every object of this service, without slashes at either end.
    public let prefix: String
    let health: PhotoBucketHealth
    /// The object keys of photos already looked up: a photo's key never changes.
    let keys = PhotoMemory<String>()
    /// Thumbnails served in `proxy` mode, kept a minute (`--photo-cache-mb`).
    let images: PhotoImageCache
    let logger: Logger

    /// How old an object with no row must be before the sweep removes it.
    public let sweepGrace: Duration

    public init(
        client: S3Client, prefix: String, sweepGrace: Duration = .seconds(3600), cacheBytes: Int = 32 << 20,
        logger: Logger = Logger(label: "burgermap.photos")
    ) {
        images = PhotoImageCache(capacity: cacheBytes)
        self.client = client
        self.prefix = prefix
        self.sweepGrace = sweepGrace
        self.logger = logger
        health = PhotoBucketHealth()
    }

    /// The object name of one image.
    func objectName(key: String, thumbnail: Bool) -> String {
        PhotoObjectKey.objectName(prefix: prefix, key: key, thumbnail: thumbnail)
    }

    /// Writes both images under a new random key (the thumbnail first, so that a full image is
    /// never there without its thumbnail).
    /// While the store is known to be away (the janitor's probe turns it back within seconds),
    /// an upload is answered `503` at once rather than after every retry's wait.
    public func stage(_ photo: ProcessedPhoto) async throws -> StagedPhoto {
        try refuseWhileAway()
        let key = PhotoObjectKey.random()
        let staged = StagedPhoto(name: key, width: photo.width, height: photo.height, objectKey: key)
        do {
            try await put(photo.thumbnail, key: key, thumbnail: true)
            try await put(photo.full, key: key, thumbnail: false)
        } catch {
            await discard(staged)
            throw error
        }
        return staged
    }

    /// Puts one image with its type, cache lifetime and content hash.
    func put(_ bytes: [UInt8], key: String, thumbnail: Bool) async throws {
        try await answering {
            try await client.put(
                key: objectName(key: key, thumbnail: thumbnail), body: ByteBuffer(bytes: bytes),
                contentType: "image/jpeg", cacheControl: PhotosController.cacheControl,
                metadata: ["sha256": Self.sha256Hex(bytes)])
        }
    }

    /// The hex SHA-256 of `bytes`.
    static func sha256Hex(_ bytes: some DataProtocol) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// The row records the key; nothing moves. Images written more than half the sweep's grace
    /// ago are refused (`408`, the transaction rolls back): the sweep may take an object with no
    /// row once it is older than the grace, so a row must commit well before that. An upload
    /// that slow (a form whose last part comes long after its first photo) is sent again.
    public func install(_ staged: [StagedPhoto], as photoIDs: [Int64], noting installed: InstalledPhotos) throws {
        let deadline = sweepGrace / 2
        for photo in staged where photo.stagedAt.duration(to: .now) > deadline {
            throw Problem(
                .requestTimeout, .uploadTooSlow, ["minutes": String(max(deadline.milliseconds / 60_000, 1))])
        }
        for (photo, id) in zip(staged, photoIDs) { installed.append(InstalledPhoto(photoID: id, staged: photo)) }
    }

    /// The objects were final from the start.
    public func publish(_ installed: [InstalledPhoto]) async throws {}

    /// The `503` of a store known to be away.
    func refuseWhileAway() throws {
        if let problem = Self.problem(health.state) { throw problem }
    }

    /// The `503` that names a store in `state` (`nil` while it works).
    static func problem(_ state: PhotoStoreState) -> Problem? {
        switch state {
        case .ok: nil
        case .unreachable: Problem(.serviceUnavailable, .photoStoreUnavailable, headers: [.retryAfter: "5"])
        case .denied: Problem(.serviceUnavailable, .photoStoreDenied, headers: [.retryAfter: "30"])
        }
    }

    /// Removes a staged photo's objects; one the store does not confirm (or a store known to be
    /// away) is left to the sweep.
    public func discard(_ staged: StagedPhoto) async {
        guard let key = staged.objectKey, health.state == .ok else { return }
        try? await removeObjects(keys: [key])
    }

    /// Removes the objects of photos whose rows did not commit.
    public func discardInstalled(_ installed: [InstalledPhoto]) async {
        for photo in installed { await discard(photo.staged) }
    }

    /// Forgets the photos' keys; the deletion queue, filled in the deleting transaction, names
    /// them, and its round removes the objects (`MediaServices.removeImages`, the janitor).
    public func remove(photoIDs: [Int64]) async {
        for id in photoIDs {
            keys.forget(photoID: id)
            images.forget(photoID: id)
        }
    }

    /// Removes the objects of `keys` (an object already gone counts as removed).
    public func removeObjects(keys: [String]) async throws {
        for key in keys {
            try await answering {
                try await client.delete(key: objectName(key: key, thumbnail: false))
                try await client.delete(key: objectName(key: key, thumbnail: true))
            }
        }
    }

    /// The full-size image, read whole.
    public func fullImage(photoID: Int64, rows: (any PhotoStore)?) async throws -> [UInt8]? {
        guard let rows, let key = try await objectKey(photoID: photoID, rows: rows) else { return nil }
        return try await answering {
            guard let object = try await client.get(key: objectName(key: key, thumbnail: false)) else { return nil }
            var bytes: [UInt8] = []
            for try await chunk in object.body { bytes.append(contentsOf: chunk.readableBytesView) }
            return bytes
        }
    }

    /// The key of a photo: remembered, or read from its row (`nil`: no such photo).
    func objectKey(photoID: Int64, rows: any PhotoStore) async throws -> String? {
        if let known = keys.value(photoID: photoID) { return known }
        guard let key = try await rows.photoObjectKey(photoID: photoID) else { return nil }
        keys.remember(key, photoID: photoID)
        return key
    }

    /// The store's faults are not the disk's: they are answered by `answering` and `/health`.
    public func probeWrite() async -> StorageFault? { nil }

    public var state: PhotoStoreState { health.state }

    /// Runs one exchange with the store: an unreachable or refusing store becomes the `503` that
    /// names it (and the state `/health` shows); an answer marks the store as working again.
    func answering<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            let value = try await body()
            health.record(.ok)
            return value
        } catch let error as S3Error {
            switch error {
            case .unreachable(let detail):
                health.record(.unreachable)
                logger.warning("photo store unreachable", metadata: ["error": "\(detail)"])
                throw Self.problem(.unreachable)!
            case .denied(let code, let message):
                health.record(.denied)
                logger.error("photo store refused the key", metadata: ["code": "\(code)", "message": "\(message)"])
                throw Self.problem(.denied)!
            default:
                throw error
            }
        }
    }

    /// Checks at start-up that the store takes, gives back and deletes an object under the
    /// prefix with the service's key: a refused key or a missing bucket stops the start with a
    /// message that says which, rather than the first upload failing.
    public func checkAccess() async throws {
        try await client.checkAccess(
            probeKey: objectName(key: "access-check-" + PhotoObjectKey.random(), thumbnail: false))
        health.record(.ok)
    }
}
