import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap

@Suite("Creating reviews with photos")
struct ReviewUploadTests {
    @Test(
        "a review with two photos is stored, its files are upright and bare, and the place counts it",
        arguments: StoreEngine.available)
    func createWithPhotos(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let rotated = TestImages.withEXIF(TestImages.jpeg(width: 320, height: 200), orientation: 6, gps: true)
            let response = try await client.postReview(
                place: place, rating: "4", text: "Juicy.\nGreat fries.",
                photos: [rotated, TestImages.transparentPNG()],
                token: alice.token)
            #expect(response.status == .created, "\(String(buffer: response.body)) \(place)")
            let review = try json(response)
            #expect(review["rating"] as? Int == 4)
            #expect(review["text"] as? String == "Juicy.\nGreat fries.")
            #expect((review["place"] as? [String: Any])?["name"] as? String == "Patty Lab")
            #expect((review["author"] as? [String: Any])?["nickname"] as? String == "alice")
            #expect(review["like_count"] as? Int == 0 && review["liked_by_me"] as? Bool == false)
            let photos = try #require(review["photos"] as? [[String: Any]])
            #expect(photos.count == 2)
            #expect(photos[0]["width"] as? Int == 200 && photos[0]["height"] as? Int == 320)
            let firstURL = try #require(photos[0]["url"] as? String)
            #expect(
                photos[0]["thumbnail_url"] as? String
                    == firstURL.replacingOccurrences(of: ".jpg", with: "/thumbnail.jpg"))

            let files = try await environment.photoFiles()
            #expect(files.stored.count == 4)
            #expect(files.incoming.isEmpty)
            let id = try #require((photos[0]["id"] as? NSNumber)?.int64Value)
            let stored = try #require(try await environment.storedImage(photoID: id, thumbnail: false))
            #expect(!TestImages.markers(stored).contains(0xE1))
            let image = try TestImages.decode(stored)
            #expect(image.width == 200 && image.height == 320)

            let placeBody = try json(try await client.send(.get, "/v1/places/\(place)"))
            #expect(placeBody["review_count"] as? Int == 1)
            #expect(placeBody["rating_avg"] as? Double == 4)
            #expect(placeBody["cover_photo_url"] as? String == firstURL)
            let profile = try json(try await client.send(.get, "/v1/users/\(alice.id)"))
            #expect(profile["review_count"] as? Int == 1)
        }
    }

    @Test("photos are served with a strong ETag, immutable caching, 304 and HEAD", arguments: StoreEngine.available)
    func servePhotos(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try json(
                try await client.postReview(
                    place: place, photos: [TestImages.jpeg(width: 900, height: 600)], token: alice.token))
            let photo = try #require((review["photos"] as? [[String: Any]])?.first)
            for (key, width) in [("url", 900), ("thumbnail_url", 400)] {
                let url = try #require(photo[key] as? String)
                let response = try await client.execute(uri: url, method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                let etag = try #require(response.headers[.eTag])
                #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
                let image = try TestImages.decode(Array(buffer: response.body))
                #expect(image.width == width)

                let again = try await client.execute(
                    uri: url, method: .get, headers: [.ifNoneMatch: "\"other\", \(etag)"])
                #expect(again.status == .notModified)
                #expect(again.body.readableBytes == 0)
                #expect(again.headers[.eTag] == etag)
                let head = try await client.execute(uri: url, method: .head)
                #expect(head.status == .ok)
                #expect(head.headers[.contentLength] == String(response.body.readableBytes))
                #expect(head.body.readableBytes == 0)
            }
            let missing = try await client.execute(uri: "/v1/photos/999.jpg", method: .get)
            #expect(missing.status == .notFound)
            #expect(try problemCode(missing) == "not_found")
            let notAnID = try await client.execute(uri: "/v1/photos/abc/thumbnail.jpg", method: .get)
            #expect(notAnID.status == .notFound)
        }
    }

    @Test(
        "photo files are served byte for byte, read in place up to 64 KiB and streamed above",
        arguments: StoreEngine.available)
    func servedBytes(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .folder)
        var generator = SeededGenerator(seed: 18)
        let sizes = [1, PhotosController.readInPlaceLimit, PhotosController.readInPlaceLimit + 1, 300_000]
        let contents = sizes.map { size in (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        for (index, bytes) in contents.enumerated() {
            let path = try #require(environment.photoFolder).path(
                photoID: Int64(900 + index), thumbnail: index % 2 == 0)
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        try await environment.withClient { client in
            for (index, size) in sizes.enumerated() {
                let uri = index % 2 == 0 ? "/v1/photos/\(900 + index)/thumbnail.jpg" : "/v1/photos/\(900 + index).jpg"
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == String(size))
                #expect(Array(buffer: response.body) == contents[index], "\(size) bytes")
            }
        }
    }

    @Test("every bad upload gets the contract's answer and leaves no row and no file", arguments: StoreEngine.available)
    func badUploads(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let good = TestImages.jpeg()
            let jpeg = TestImages.noisyJPEG(width: 400, height: 300)
            let cases: [(String, [[UInt8]], String, HTTPResponse.Status, String)] = [
                ("gif", [good, TestImages.gif], "5", .unsupportedMediaType, "unsupported_media_type"),
                ("pdf", [TestImages.pdf], "5", .unsupportedMediaType, "unsupported_media_type"),
                ("heic", [TestImages.heic], "5", .unsupportedMediaType, "unsupported_media_type"),
                ("zero bytes", [[]], "5", .badRequest, "invalid_image"),
                ("truncated", [good, Array(jpeg.prefix(jpeg.count / 2))], "5", .badRequest, "invalid_image"),
                (
                    "bomb", [TestImages.withDeclaredSize(good, width: 65535, height: 65535)], "5", .contentTooLarge,
                    "payload_too_large"
                ),
                ("six photos", Array(repeating: good, count: 6), "5", .contentTooLarge, "payload_too_large"),
                (
                    "10 MiB + 1", [good + [UInt8](repeating: 0, count: 10 << 20 + 1 - good.count)], "5",
                    .contentTooLarge, "payload_too_large"
                ),
                ("bad rating after a good photo", [good], "6", .badRequest, "validation_failed"),
            ]
            for (name, photos, rating, status, code) in cases {
                let response = try await client.postReview(
                    place: place, rating: rating, photos: photos, token: alice.token)
                #expect(response.status == status, "\(name)")
                #expect(try problemCode(response) == code, "\(name)")
            }
            #expect(try await environment.reviewRowCounts() == (0, 0))
            let files = try await environment.photoFiles()
            #expect(files.stored.isEmpty && files.incoming.isEmpty)
        }
    }

    @Test(
        "broken multipart bodies are 400, other media types 415, and nothing is kept", arguments: StoreEngine.available)
    func brokenBodies(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let uri = "/v1/places/\(place)/reviews"
            var form = MultipartBody()
            form.field("rating", "5")
            form.field("text", "ok")
            form.file("photo", TestImages.jpeg())
            let unclosed = try await client.upload(.post, uri, form, token: alice.token, closing: false)
            #expect(unclosed.status == .badRequest)
            #expect(try problemCode(unclosed) == "validation_failed")

            var cut = MultipartBody()
            cut.field("rating", "5")
            cut.raw("--\(cut.boundary)\r\nContent-Disposition: form-data; name=\"photo\"\r\n\r\n")
            cut.raw(String(decoding: TestImages.jpeg().prefix(200), as: UTF8.self))
            let cutOff = try await client.upload(.post, uri, cut, token: alice.token, closing: false)
            #expect(cutOff.status == .badRequest)

            var unnamed = MultipartBody()
            unnamed.raw("--\(unnamed.boundary)\r\nContent-Type: text/plain\r\n\r\n5\r\n")
            let noDisposition = try await client.upload(.post, uri, unnamed, token: alice.token)
            #expect(noDisposition.status == .badRequest)
            #expect(try problemCode(noDisposition) == "validation_failed")

            let jsonBody = try await client.send(.post, uri, json: ["rating": 5, "text": "x"], token: alice.token)
            #expect(jsonBody.status == .unsupportedMediaType)
            let noBoundary = try await client.execute(
                uri: uri, method: .post,
                headers: [.contentType: "multipart/form-data", .authorization: "Bearer \(alice.token)"],
                body: ByteBuffer(string: "x"))
            #expect(noBoundary.status == .badRequest)

            let anonymous = try await client.upload(.post, uri, form, token: nil)
            #expect(anonymous.status == .unauthorized)
            let missingPlace = try await client.upload(.post, "/v1/places/9999/reviews", form, token: alice.token)
            #expect(missingPlace.status == .notFound)

            #expect(try await environment.reviewRowCounts() == (0, 0))
            let files = try await environment.photoFiles()
            #expect(files.stored.isEmpty && files.incoming.isEmpty)

            // A quoted boundary with spaces and `filename*=` (RFC 8187) are read as meant.
            var international = MultipartBody(boundary: "burger map:=1")
            international.field("rating", "3")
            international.field("text", "맛있어요")
            international.raw(
                "--burger map:=1\r\nContent-Disposition: form-data; name=\"photo\"; filename*=UTF-8''%EB%B2%84%EA%B1%B0.jpg\r\n\r\n"
            )
            international.raw(bytes: TestImages.jpeg() + Array("\r\n".utf8))
            let created = try await client.upload(.post, uri, international, token: alice.token)
            #expect(created.status == .created, "\(String(buffer: created.body))")
            #expect(try json(created)["text"] as? String == "맛있어요")
            #expect(try await environment.reviewRowCounts() == (1, 1))
        }
    }
}
