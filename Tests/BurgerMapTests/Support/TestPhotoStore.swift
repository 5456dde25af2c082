import AsyncHTTPClient
import BurgerMap
import BurgerMapCore
import BurgerMapObjectStorage
import Foundation
import NIOCore
import Testing

/// Where a test environment keeps photos: the folder in its data folder, or a prefix of its own
/// in the bucket of the SeaweedFS server that scripts/seaweedfs starts. The suite runs on the
/// folder; scripts/test runs every photo test a second time with
/// `BURGERMAP_TEST_PHOTO_STORE=s3` (and the tests of `Media/Objects` always use the bucket).
enum PhotoBackend: String, CaseIterable, Sendable {
    case folder, s3

    /// The store `BURGERMAP_TEST_PHOTO_STORE` names (the folder by default).
    static var configured: PhotoBackend {
        ProcessInfo.processInfo.environment["BURGERMAP_TEST_PHOTO_STORE"] == "s3" ? .s3 : .folder
    }
}

/// The SeaweedFS server of scripts/seaweedfs.
enum TestS3 {
    static func variable(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw TestS3Setup.missing(name)
        }
        return value
    }

    /// The client configuration of the test bucket, with the service's key or the refused one.
    static func configuration(refused: Bool = false, bucket: String? = nil) throws -> S3Configuration {
        if (ProcessInfo.processInfo.environment["BURGERMAP_TEST_S3_ENDPOINT"] ?? "").isEmpty {
            try TestServers.skipUnless(TestServers.objectStoreRuns)
        }
        let credentials = S3Credentials(
            accessKeyID: try variable(
                refused ? "BURGERMAP_TEST_S3_REFUSED_ACCESS_KEY" : "BURGERMAP_TEST_S3_ACCESS_KEY"),
            secretAccessKey: try variable(
                refused ? "BURGERMAP_TEST_S3_REFUSED_SECRET_KEY" : "BURGERMAP_TEST_S3_SECRET_KEY"))
        guard let endpoint = URL(string: try variable("BURGERMAP_TEST_S3_ENDPOINT")) else {
            throw TestS3Setup.missing("BURGERMAP_TEST_S3_ENDPOINT")
        }
        return S3Configuration(
            endpoint: endpoint, region: (try? variable("BURGERMAP_TEST_S3_REGION")) ?? "us-east-1",
            bucket: try bucket ?? variable("BURGERMAP_TEST_S3_BUCKET"), addressing: .path, credentials: credentials)
    }

    /// A client of the test bucket.
    static func client(refused: Bool = false) throws -> S3Client {
        S3Client(configuration: try configuration(refused: refused), httpClient: S3Client.sharedHTTPClient)
    }

    /// A new prefix, so that tests running at once never see each other's objects.
    static func newPrefix() -> String { "tests/" + UUID().uuidString.lowercased() }

    /// The names (relative to `prefix`) of every object under `prefix`.
    static func objectNames(_ client: S3Client, prefix: String) async throws -> Set<String> {
        var names: Set<String> = []
        var token: String? = nil
        repeat {
            let page = try await client.list(prefix: prefix + "/", continuationToken: token, maxKeys: 1000)
            for object in page.objects { names.insert(String(object.key.dropFirst(prefix.count + 1))) }
            token = page.next
        } while token != nil
        return names
    }
}

enum TestS3Setup: Error, CustomStringConvertible {
    case missing(String)

    var description: String {
        switch self {
        case .missing(let name):
            "\(name) is not set, so the S3 tests have no server: run the tests through scripts/test, or as "
                + "`scripts/postgres scripts/seaweedfs swift test`, which starts a throw-away SeaweedFS"
        }
    }
}

extension TestEnvironment {
    /// The photo folder, when the environment keeps photos there.
    var photoFolder: PhotoFolder? { media.storage as? PhotoFolder }
    /// The bucket store, when the environment keeps photos there.
    var photoBucket: PhotoBucket? { media.storage as? PhotoBucket }

    /// Removes the images of deleted photos, as the running service's janitor does within
    /// seconds of each deletion (`PhotoObjectJanitor`).
    func settlePhotoDeletions() async throws {
        try await PhotoObjectJanitor(storage: media.storage, rows: stores.photos, sweepGrace: .seconds(3600))
            .drainQueue()
    }

    /// The stored images once deletions are settled: the folder's final file names, or the
    /// bucket's object names under the environment's prefix; and, in the folder, anything left
    /// in `incoming/` (a bucket has no such place).
    func photoFiles() async throws -> (stored: Set<String>, incoming: [String]) {
        try await settlePhotoDeletions()
        if let bucket = photoBucket {
            return (try await TestS3.objectNames(bucket.client, prefix: bucket.prefix), [])
        }
        let root = try #require(photoFolder).root
        let stored = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".jpg") }
        // Every file waiting in `incoming/` (in the process folders too), but their locks.
        let incomingFolder = root.appendingPathComponent("incoming").path
        let incoming = try FileManager.default.subpathsOfDirectory(atPath: incomingFolder).filter { path in
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: incomingFolder + "/" + path, isDirectory: &isFolder)
            return !isFolder.boolValue && !path.hasSuffix("/.lock")
        }
        return (Set(stored), incoming.sorted())
    }

    /// The stored names of a photo's two images (`<id>.jpg` in the folder, `<key>.jpg` in a
    /// bucket).
    func imageNames(photoID: Int64) async throws -> Set<String> {
        let key =
            photoBucket == nil
            ? String(photoID) : try #require(try await stores.photos.photoObjectKey(photoID: photoID))
        return [key + ".jpg", key + ".thumb.jpg"]
    }

    /// The stored bytes of one image of a photo.
    func storedImage(photoID: Int64, thumbnail: Bool) async throws -> [UInt8]? {
        if let folder = photoFolder {
            return FileManager.default.contents(atPath: folder.path(photoID: photoID, thumbnail: thumbnail))
                .map { [UInt8]($0) }
        }
        let bucket = try #require(photoBucket)
        guard let key = try await stores.photos.photoObjectKey(photoID: photoID),
            let object = try await bucket.client.get(
                key: PhotoObjectKey.objectName(prefix: bucket.prefix, key: key, thumbnail: thumbnail))
        else { return nil }
        var bytes: [UInt8] = []
        for try await chunk in object.body { bytes.append(contentsOf: chunk.readableBytesView) }
        return bytes
    }

    /// A folder holding every stored photo's full-size image as `<id>.jpg`: the photo folder
    /// itself, or a copy of the bucket's images made for the comparison.
    func fullImagesFolder() async throws -> URL {
        if let folder = photoFolder { return folder.root }
        let copy = folder.appendingPathComponent("bucket-copy", isDirectory: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for id in try await stores.photos.storedPhotoIDs() {
            guard let bytes = try await storedImage(photoID: id, thumbnail: false) else { continue }
            try Data(bytes).write(to: copy.appendingPathComponent("\(id).jpg"))
        }
        return copy
    }
}
