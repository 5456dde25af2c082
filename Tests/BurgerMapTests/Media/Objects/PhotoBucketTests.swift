import AsyncHTTPClient
import BurgerMap
import BurgerMapCore
import BurgerMapObjectStorage
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Photos in a real S3 bucket (SeaweedFS, from scripts/seaweedfs) on both engines: the object
/// names, the three URL modes, deletions through the queue, the sweep, and a store that is away.
@Suite("photos in an S3 bucket")
struct PhotoBucketTests {
    /// Posts a review with one photo and answers the review JSON's photo and the photo id.
    static func reviewWithPhoto(_ client: some TestClientProtocol) async throws -> (
        photo: [String: Any], id: Int64, review: Int64, token: String
    ) {
        let alice = try await client.member("alice")
        let place = try await client.addPlace("Patty Lab", token: alice.token)
        let response = try await client.postReview(place: place, photos: [TestImages.jpeg()], token: alice.token)
        #expect(response.status == .created)
        let review = try json(response)
        let photo = try #require((review["photos"] as? [[String: Any]])?.first)
        return (
            photo, try #require((photo["id"] as? NSNumber)?.int64Value),
            try #require((review["id"] as? NSNumber)?.int64Value), alice.token
        )
    }

    /// The service's ETag of some bytes: the first 128 bits of their SHA-256.
    static func etag(_ bytes: [UInt8]) -> String {
        "\"" + SHA256.hash(data: bytes).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    @Test(
        "proxy: a photo is stored under a random key and streamed with the folder's ETag",
        arguments: StoreEngine.available)
    func proxy(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .s3)
        try await environment.withClient { client in
            let (photo, id, _, _) = try await Self.reviewWithPhoto(client)
            #expect(photo["url"] as? String == "/v1/photos/\(id).jpg")
            let key = try #require(try await environment.stores.photos.photoObjectKey(photoID: id))
            #expect(UUID(uuidString: key) != nil && key == key.lowercased())
            #expect(try await environment.photoFiles().stored == [key + ".jpg", key + ".thumb.jpg"])
            for thumbnail in [false, true] {
                let uri = thumbnail ? "/v1/photos/\(id)/thumbnail.jpg" : "/v1/photos/\(id).jpg"
                let stored = try #require(try await environment.storedImage(photoID: id, thumbnail: thumbnail))
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                #expect(Array(buffer: response.body) == stored)
                #expect(response.headers[.eTag] == Self.etag(stored))
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                let again = try await client.execute(
                    uri: uri, method: .get, headers: [.ifNoneMatch: Self.etag(stored)])
                #expect(again.status == .notModified)
                let head = try await client.execute(uri: uri, method: .head)
                #expect(head.status == .ok && head.headers[.contentLength] == String(stored.count))
            }
            #expect(try await client.execute(uri: "/v1/photos/\(id + 1000).jpg", method: .get).status == .notFound)
        }
    }

    @Test("redirect: 302 to a presigned URL that the store answers", arguments: StoreEngine.available)
    func redirect(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .s3)
        environment.configuration.photoStore.links = .redirect(ttl: 600)
        let bucket = try #require(environment.photoBucket)
        try await environment.withClient { client in
            let (photo, id, _, _) = try await Self.reviewWithPhoto(client)
            #expect(photo["url"] as? String == "/v1/photos/\(id).jpg")
            let key = try #require(try await environment.stores.photos.photoObjectKey(photoID: id))
            let response = try await client.execute(uri: "/v1/photos/\(id)/thumbnail.jpg", method: .get)
            #expect(response.status == .found)
            #expect(response.headers[.cacheControl] == "private, max-age=150")
            let location = try #require(response.headers[.location])
            let configuration = try TestS3.configuration()
            #expect(
                location.hasPrefix(
                    "\(configuration.endpoint.absoluteString)/\(configuration.bucket)/\(bucket.prefix)/\(key).thumb.jpg?"
                ))
            #expect(location.contains("X-Amz-Expires=600") && location.contains("X-Amz-Signature="))
            let fetched = try await HTTPClient.shared.execute(HTTPClientRequest(url: location), timeout: .seconds(10))
            #expect(fetched.status == .ok)
            let body = try await fetched.body.collect(upTo: 1 << 20)
            #expect(Array(buffer: body) == (try await environment.storedImage(photoID: id, thumbnail: true)))
        }
    }

    @Test("public: Photo objects hold absolute URLs, and /v1/photos redirects there", arguments: StoreEngine.available)
    func publicURLs(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .s3)
        environment.configuration.photoStore.links = .publicBase("https://cdn.example/")
        let prefix = try #require(environment.photoBucket).prefix
        try await environment.withClient { client in
            let (photo, id, review, _) = try await Self.reviewWithPhoto(client)
            let key = try #require(try await environment.stores.photos.photoObjectKey(photoID: id))
            #expect(photo["url"] as? String == "https://cdn.example/\(prefix)/\(key).jpg")
            #expect(photo["thumbnail_url"] as? String == "https://cdn.example/\(prefix)/\(key).thumb.jpg")
            let read = try json(try await client.send(.get, "/v1/reviews/\(review)"))
            let readPhoto = try #require((read["photos"] as? [[String: Any]])?.first)
            #expect(readPhoto["url"] as? String == "https://cdn.example/\(prefix)/\(key).jpg")
            let response = try await client.execute(uri: "/v1/photos/\(id).jpg", method: .get)
            #expect(response.status == .found)
            #expect(response.headers[.location] == "https://cdn.example/\(prefix)/\(key).jpg")
        }
    }

    @Test(
        "a deleted review's objects go at once; with the store away they stay queued until it answers",
        arguments: StoreEngine.available)
    func deletionQueue(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .s3)
        let bucket = try #require(environment.photoBucket)
        let (second, token) = try await environment.withClientReturning(logger: .init(label: "queue")) { client in
            let (_, id, review, token) = try await Self.reviewWithPhoto(client)
            let place = try #require(try await environment.stores.reviews.review(id: review, viewer: nil)?.place.id)
            let other = try json(try await client.postReview(place: place, photos: [TestImages.jpeg()], token: token))
            // Served once (the thumbnail is then kept in memory), then deleted: gone at once.
            let thumbnail = "/v1/photos/\(id)/thumbnail.jpg"
            #expect(try await client.execute(uri: thumbnail, method: .get).status == .ok)
            #expect(try await client.send(.delete, "/v1/reviews/\(review)", token: token).status == .noContent)
            #expect(try await client.execute(uri: "/v1/photos/\(id).jpg", method: .get).status == .notFound)
            #expect(try await client.execute(uri: thumbnail, method: .get).status == .notFound)
            return (try #require((other["id"] as? NSNumber)?.int64Value), token)
        }
        #expect(try await environment.stores.photos.queuedPhotoObjectDeletions(limit: 10).isEmpty)
        #expect(try await TestS3.objectNames(bucket.client, prefix: bucket.prefix).count == 2)

        // The same prefix through a store that does not answer: the key stays queued.
        var away = try TestS3.configuration()
        away.endpoint = URL(string: "http://127.0.0.1:\(try closedPort())")!
        var retry = S3RetryPolicy.standard
        retry.sleep = { _ in }
        environment.media = MediaServices(
            storage: PhotoBucket(
                client: S3Client(configuration: away, httpClient: S3Client.sharedHTTPClient, retry: retry),
                prefix: bucket.prefix))
        try await environment.withClient { client in
            let deleted = try await client.send(.delete, "/v1/reviews/\(second)", token: token)
            #expect(deleted.status == .noContent)
        }
        let queued = try await environment.stores.photos.queuedPhotoObjectDeletions(limit: 10)
        #expect(queued.count == 1)
        #expect(try await TestS3.objectNames(bucket.client, prefix: bucket.prefix).count == 2)
        // The janitor of an instance that reaches the store finishes it.
        let janitor = PhotoObjectJanitor(storage: bucket, rows: environment.stores.photos, sweepGrace: .seconds(3600))
        #expect(try await janitor.drainQueue() == 1)
        #expect(try await TestS3.objectNames(bucket.client, prefix: bucket.prefix).isEmpty)
        #expect(try await environment.stores.photos.queuedPhotoObjectDeletions(limit: 10).isEmpty)
    }

    @Test("the sweep removes objects no row names, only once older than the grace", arguments: StoreEngine.available)
    func sweep(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .s3)
        let bucket = try #require(environment.photoBucket)
        try await environment.withClient { client in
            let (_, id, _, _) = try await Self.reviewWithPhoto(client)
            let kept = try await environment.imageNames(photoID: id)
            let orphan = PhotoObjectKey.random()
            for name in [orphan + ".jpg", orphan + ".thumb.jpg", "notes.txt", "123456.jpg"] {
                try await bucket.client.put(
                    key: bucket.prefix + "/" + name, body: ByteBuffer(bytes: [1, 2, 3]), contentType: "image/jpeg",
                    cacheControl: "no-store", metadata: [:])
            }
            func janitor(hoursLater: Int64) -> PhotoObjectJanitor {
                PhotoObjectJanitor(
                    storage: bucket, rows: environment.stores.photos, sweepGrace: .seconds(3600),
                    now: { Timestamp(milliseconds: Timestamp.now().milliseconds + hoursLater * 3_600_000) })
            }
            #expect(try await janitor(hoursLater: 0).sweep() == 0)
            #expect(try await environment.photoFiles().stored.count == 6)
            #expect(try await janitor(hoursLater: 2).sweep() == 4)
            #expect(try await environment.photoFiles().stored == kept)
        }
    }

    @Test(
        "a store that does not answer: uploads and photos 503, the rest answers, /health names it",
        arguments: StoreEngine.available)
    func unreachable(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .s3)
        var away = try TestS3.configuration()
        away.endpoint = URL(string: "http://127.0.0.1:\(try closedPort())")!
        var retry = S3RetryPolicy.standard
        retry.sleep = { _ in }
        let bucket = PhotoBucket(
            client: S3Client(configuration: away, httpClient: S3Client.sharedHTTPClient, retry: retry),
            prefix: TestS3.newPrefix())
        environment.media = MediaServices(storage: bucket)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let upload = try await client.postReview(place: place, photos: [TestImages.jpeg()], token: alice.token)
            #expect(upload.status == .serviceUnavailable)
            #expect(upload.headers[.retryAfter] == "5")
            #expect(try json(upload)["code"] as? String == "service_unavailable")
            #expect(try await environment.reviewRowCounts() == (0, 0))
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok)
            #expect(try json(health)["photo_store"] as? String == "unreachable")
            let text = try await client.postReview(place: place, token: alice.token)
            #expect(text.status == .created)
            #expect(try await client.send(.get, "/v1/places/\(place)").status == .ok)
        }
    }

    @Test("a key the bucket refuses stops the start, naming the bucket", arguments: StoreEngine.available)
    func refusedKey(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .folder)
        var configuration = environment.configuration
        configuration.photoStore.bucket = try TestS3.configuration(refused: true)
        let bucketName = try TestS3.variable("BURGERMAP_TEST_S3_BUCKET")
        do {
            _ = try await buildDependencies(configuration, stores: environment.stores)
            Issue.record("the start went on with a refused key")
        } catch let error as PhotoStoreStartError {
            #expect("\(error)".contains("s3://\(bucketName)"))
            #expect("\(error)".contains("AccessDenied"))
        }
    }
}

/// A loopback port that nothing listens on.
func closedPort() throws -> Int {
    let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
