import BurgerMapCore
import BurgerMapObjectStorage
import Crypto
import Foundation
import NIOCore

/// Copies the photo folder's images into a bucket (`burgermap photos migrate`): each final
/// `<id>.jpg` and `<id>.thumb.jpg` goes to `<prefix>/<id>.jpg` and `<prefix>/<id>.thumb.jpg`,
/// where a bucket store looks for a photo whose row has no key (`PhotoObjectKey`). Files still
/// in `incoming/` belong to no committed row and stay behind.
///
/// An image already stored with the same SHA-256 (`x-amz-meta-sha256`) is skipped, so a run
/// that was interrupted resumes where it stopped. Each copy is verified by hash: the store
/// checks `Content-MD5` on the write, and the object read back must carry the file's size and
/// SHA-256, and, where the store's `ETag` is an MD5 (a single-part upload), that MD5.
public struct PhotoMigration: Sendable {
    let client: S3Client
    let prefix: String
    let folder: URL

    public init(client: S3Client, prefix: String, folder: URL) {
        self.client = client
        self.prefix = prefix
        self.folder = folder
    }

    /// One image of the folder.
    public struct Image: Sendable {
        let photoID: Int64
        let thumbnail: Bool
        let path: String
    }

    /// What a copy did.
    public enum Outcome: Sendable {
        case copied(bytes: Int)
        case present
    }

    /// A copy whose check failed: the object read back is not the file.
    public struct VerificationFailed: Error, CustomStringConvertible {
        let object: String
        let reason: String
        public var description: String { "\(object): \(reason)" }
    }

    /// The folder's images, by photo id.
    public func images() throws -> [Image] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).compactMap { name -> Image? in
            guard let id = PhotoFolder.photoID(inFileName: name) else { return nil }
            return Image(
                photoID: id, thumbnail: name.hasSuffix(".thumb.jpg"), path: folder.appendingPathComponent(name).path)
        }.sorted { ($0.photoID, $0.thumbnail ? 1 : 0) < ($1.photoID, $1.thumbnail ? 1 : 0) }
    }

    /// Copies one image unless the bucket holds it already, and verifies it.
    public func copy(_ image: Image) async throws -> Outcome {
        guard let data = FileManager.default.contents(atPath: image.path) else { return .present }
        let bytes = [UInt8](data)
        let sha256 = PhotoBucket.sha256Hex(bytes)
        let name = PhotoObjectKey.objectName(prefix: prefix, key: String(image.photoID), thumbnail: image.thumbnail)
        if let head = try await client.head(key: name), head.metadata["sha256"] == sha256, head.size == bytes.count {
            return .present
        }
        try await client.put(
            key: name, body: ByteBuffer(bytes: bytes), contentType: "image/jpeg",
            cacheControl: PhotosController.cacheControl, metadata: ["sha256": sha256])
        guard let head = try await client.head(key: name) else {
            throw VerificationFailed(object: name, reason: "missing right after it was written")
        }
        guard head.size == bytes.count, head.metadata["sha256"] == sha256 else {
            throw VerificationFailed(object: name, reason: "size or SHA-256 differs from the file's")
        }
        let storeTag = (head.eTag ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        let md5 = Insecure.MD5.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        if storeTag.count == 32, storeTag.allSatisfy(\.isHexDigit), storeTag.lowercased() != md5 {
            throw VerificationFailed(object: name, reason: "the store's MD5 differs from the file's")
        }
        return .copied(bytes: bytes.count)
    }
}
