import AsyncHTTPClient
import BurgerMapObjectStorage
import Crypto
import Foundation
import NIOCore
import Testing

/// The client against a real S3 server: the SeaweedFS of scripts/seaweedfs, with the service's
/// key, a key the bucket refuses, and (for faults) a closed port and a scripted stand-in.
@Suite("ObjectStorage: SeaweedFS")
struct ObjectStorageSeaweedFSTests {
    /// Bytes 0…255 over and over, with a seeded shuffle of the first block, 100 KB in all.
    static func photoBytes(_ count: Int = 100_000) -> ByteBuffer {
        var generator = SeededGenerator(seed: 3)
        var block = Array(0...255).map(UInt8.init)
        block.shuffle(using: &generator)
        return ByteBuffer(bytes: (0..<count).map { block[$0 % 256] })
    }

    @Test func putGetHeadRoundTrip() async throws {
        let server = try S3TestServer.fromEnvironment()
        let s3 = server.client()
        let key = S3TestServer.prefix("round-trip") + "été burger+1 (a).jpg"
        let body = Self.photoBytes()
        let md5 = Insecure.MD5.hash(data: body.readableBytesView).map { String(format: "%02x", $0) }.joined()
        try await s3.put(
            key: key, body: body, contentType: "image/jpeg", cacheControl: "public, max-age=31536000, immutable",
            metadata: ["Width": "800", "source-sha256": "abc123"])

        let object = try #require(try await s3.get(key: key))
        #expect(object.contentType == "image/jpeg")
        #expect(object.contentLength == 100_000)
        #expect(object.eTag == "\"\(md5)\"")
        #expect(object.metadata == ["width": "800", "source-sha256": "abc123"])
        #expect(try await object.body.collect(upTo: 1 << 20) == body)

        let head = try #require(try await s3.head(key: key))
        #expect(head.size == 100_000)
        #expect(head.contentType == "image/jpeg")
        #expect(head.cacheControl == "public, max-age=31536000, immutable")
        #expect(head.eTag == "\"\(md5)\"")
        #expect(head.metadata == ["width": "800", "source-sha256": "abc123"])
        let modified = try #require(head.lastModified)
        #expect(abs(modified.timeIntervalSinceNow) < 300)

        #expect(try await s3.get(key: key + ".missing") == nil)
        #expect(try await s3.head(key: key + ".missing") == nil)
        try await s3.delete(key: key)
    }

    @Test func listPagesWithContinuation() async throws {
        let server = try S3TestServer.fromEnvironment()
        let s3 = server.client()
        let prefix = S3TestServer.prefix("list")
        let keys = ["a", "b/1", "b/2", "c d", "é"].map { prefix + "photos/" + $0 }
        for key in keys.reversed() {
            try await s3.put(
                key: key, body: ByteBuffer(string: key), contentType: "text/plain", cacheControl: "no-cache",
                metadata: [:])
        }
        try await s3.put(
            key: prefix + "other", body: ByteBuffer(), contentType: "text/plain", cacheControl: "", metadata: [:])
        var pages: [[S3ObjectInfo]] = []
        var token: String? = nil
        repeat {
            let page = try await s3.list(prefix: prefix + "photos/", continuationToken: token, maxKeys: 2)
            pages.append(page.objects)
            token = page.next
        } while token != nil && pages.count < 10
        #expect(pages.map(\.count) == [2, 2, 1])
        #expect(pages.flatMap { $0 }.map(\.key) == keys)
        #expect(pages.flatMap { $0 }.map(\.size) == keys.map { Int64($0.utf8.count) })
        #expect(pages.flatMap { $0 }.allSatisfy { abs($0.lastModified.timeIntervalSinceNow) < 300 })
        for key in keys + [prefix + "other"] { try await s3.delete(key: key) }
        #expect(try await s3.list(prefix: prefix, continuationToken: nil, maxKeys: 1000).objects.isEmpty)
    }

    @Test func deleteTwice() async throws {
        let s3 = try S3TestServer.fromEnvironment().client()
        let key = S3TestServer.prefix("delete") + "photo.jpg"
        try await s3.put(
            key: key, body: Self.photoBytes(1000), contentType: "image/jpeg", cacheControl: "", metadata: [:])
        try await s3.delete(key: key)
        try await s3.delete(key: key)
        #expect(try await s3.get(key: key) == nil)
    }

    @Test func presignedGetAndExpiredOne() async throws {
        let s3 = try S3TestServer.fromEnvironment().client()
        let key = S3TestServer.prefix("presigned") + "a b/é.jpg"
        let body = Self.photoBytes(5000)
        try await s3.put(key: key, body: body, contentType: "image/jpeg", cacheControl: "", metadata: [:])
        // A plain client, with no S3 knowledge: the URL alone must be enough.
        let fresh = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: s3.presignedURL(key: key, expires: 300, at: Date())), timeout: .seconds(10))
        #expect(fresh.status.code == 200)
        #expect(try await fresh.body.collect(upTo: 1 << 20) == body)
        let expired = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: s3.presignedURL(key: key, expires: 60, at: Date() - 3600)), timeout: .seconds(10))
        let answer = String(buffer: try await expired.body.collect(upTo: 1 << 20))
        #expect(expired.status.code == 403, "\(answer)")
        try await s3.delete(key: key)
    }

    @Test func checkAccessPassesWithTheServiceKey() async throws {
        let s3 = try S3TestServer.fromEnvironment().client()
        let probe = S3TestServer.prefix("access") + "probe"
        try await s3.checkAccess(probeKey: probe)
        #expect(try await s3.head(key: probe) == nil, "the probe is deleted")
    }

    @Test func checkAccessNamesTheBucketWhenTheKeyIsRefused() async throws {
        let server = try S3TestServer.fromEnvironment()
        let s3 = server.client(credentials: server.refused)
        let error = await #expect(throws: S3Error.self) {
            try await s3.checkAccess(probeKey: S3TestServer.prefix("refused") + "probe")
        }
        guard case .denied(let code, let message) = error else {
            Issue.record("expected .denied, got \(String(describing: error))")
            return
        }
        #expect(code == "AccessDenied")
        #expect(message.contains("bucket \"\(server.bucket)\""), "\(message)")
        #expect(message.contains(server.refused.accessKeyID) && message.contains("write (PUT)"), "\(message)")
        #expect("\(error!)".contains(server.bucket))
    }

    @Test func wrongSecretIsDenied() async throws {
        let server = try S3TestServer.fromEnvironment()
        let wrong = S3Credentials(accessKeyID: server.credentials.accessKeyID, secretAccessKey: "not-the-secret")
        let error = await #expect(throws: S3Error.self) {
            try await server.client(credentials: wrong).checkAccess(probeKey: "probe")
        }
        guard case .denied(let code, _) = error else {
            Issue.record("expected .denied, got \(String(describing: error))")
            return
        }
        #expect(code == "SignatureDoesNotMatch")
    }

    @Test func missingBucket() async throws {
        let server = try S3TestServer.fromEnvironment()
        let s3 = server.client(credentials: server.admin, bucket: "burgermap-no-such-bucket")
        let error = await #expect(throws: S3Error.self) { try await s3.checkAccess(probeKey: "probe") }
        guard case .noSuchBucket(let bucket) = error else {
            Issue.record("expected .noSuchBucket, got \(String(describing: error))")
            return
        }
        #expect(bucket == "burgermap-no-such-bucket")
    }
}

/// SplitMix64, for test data that is the same every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
