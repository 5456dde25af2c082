import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapSQLite

@Suite("Review life cycle, lists, idempotency and avatars")
struct ReviewLifecycleTests {
    @Test(
        "the same Idempotency-Key replays the first answer; another user's key is separate",
        arguments: StoreEngine.available)
    func idempotentCreation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "upload-7f3a"]
            let first = try await client.postReview(
                place: place, photos: [TestImages.jpeg()], token: alice.token, headers: key)
            let retry = try await client.postReview(
                place: place, photos: [TestImages.jpeg()], token: alice.token, headers: key)
            #expect(first.status == .created)
            #expect(retry.status == .created)
            #expect(Array(buffer: retry.body) == Array(buffer: first.body))
            let other = try await client.postReview(place: place, photos: [], token: bob.token, headers: key)
            #expect(other.status == .created)
            #expect(try json(other)["id"] as? Int != (try json(first)["id"] as? Int))
            #expect(try await environment.reviewRowCounts() == (2, 1))
            #expect(try await environment.photoFiles().stored.count == 2)

            let badKey = try await client.postReview(
                place: place, token: alice.token, headers: [HTTPField.Name("Idempotency-Key")!: "has space"])
            #expect(badKey.status == .badRequest)
        }
    }

    @Test(
        "only the author edits or deletes; deleting removes rows and files and updates the place",
        arguments: StoreEngine.available)
    func editAndDelete(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let older = try json(
                try await client.postReview(place: place, rating: "2", photos: [TestImages.jpeg()], token: bob.token))
            let review = try json(
                try await client.postReview(
                    place: place, rating: "4", photos: [TestImages.jpeg(), TestImages.jpeg()], token: alice.token))
            let id = try #require(review["id"] as? Int)
            let newestPhoto = try #require((review["photos"] as? [[String: Any]])?.first?["url"] as? String)
            var placeBody = try json(try await client.send(.get, "/v1/places/\(place)"))
            #expect(placeBody["rating_avg"] as? Double == 3)
            #expect(placeBody["cover_photo_url"] as? String == newestPhoto)

            let forbidden = try await client.send(.patch, "/v1/reviews/\(id)", json: ["rating": 1], token: bob.token)
            #expect(forbidden.status == .forbidden)
            #expect(try problemCode(forbidden) == "forbidden")
            #expect(try await client.send(.delete, "/v1/reviews/\(id)", token: bob.token).status == .forbidden)
            let invalid = try await client.send(
                .patch, "/v1/reviews/\(id)", json: ["rating": 9, "text": ""], token: alice.token)
            #expect(try problemCode(invalid) == "validation_failed")
            #expect((try json(invalid)["errors"] as? [[String: Any]])?.count == 2)

            let edited = try await client.send(
                .patch, "/v1/reviews/\(id)", json: ["rating": 5, "text": "Even better."], token: alice.token)
            #expect(edited.status == .ok)
            #expect(try json(edited)["rating"] as? Int == 5)
            #expect(try json(edited)["text"] as? String == "Even better.")
            placeBody = try json(try await client.send(.get, "/v1/places/\(place)"))
            #expect(placeBody["rating_avg"] as? Double == 3.5)

            let deleted = try await client.send(.delete, "/v1/reviews/\(id)", token: alice.token)
            #expect(deleted.status == .noContent)
            #expect(try await client.send(.get, "/v1/reviews/\(id)").status == .notFound)
            #expect(try await client.send(.delete, "/v1/reviews/\(id)", token: alice.token).status == .notFound)
            #expect(try await environment.reviewRowCounts() == (1, 1))
            let olderPhoto = try #require((older["photos"] as? [[String: Any]])?.first)
            let olderID = try #require(olderPhoto["id"] as? Int)
            #expect(try await environment.photoFiles().stored == environment.imageNames(photoID: Int64(olderID)))
            placeBody = try json(try await client.send(.get, "/v1/places/\(place)"))
            #expect(placeBody["review_count"] as? Int == 1)
            #expect(placeBody["rating_avg"] as? Double == 2)
            #expect(placeBody["cover_photo_url"] as? String == olderPhoto["url"] as? String)
        }
    }

    @Test(
        "review lists are newest first, keyset-paged, and refuse a cursor from another list",
        arguments: StoreEngine.available)
    func lists(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let lab = try await client.addPlace("Patty Lab", token: alice.token)
            let diner = try await client.addPlace("Onion Ring Diner", token: alice.token)
            var created: [Int] = []
            for index in 0..<5 {
                let author = index % 2 == 0 ? alice : bob
                let response = try await client.postReview(
                    place: index < 3 ? lab : diner, text: "review \(index)", token: author.token)
                created.append(try #require(try json(response)["id"] as? Int))
            }
            func walk(_ path: String) async throws -> [Int] {
                var ids: [Int] = []
                var uri = "\(path)?limit=2"
                while true {
                    let response = try await client.send(.get, uri)
                    #expect(response.status == .ok)
                    let body = try json(response)
                    ids += (body["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                    guard let next = body["next_cursor"] as? String else {
                        #expect(response.headers[.init("Link")!] == nil)
                        return ids
                    }
                    let link = try #require(response.headers[.init("Link")!])
                    #expect(link.hasPrefix("<\(path)?"))
                    uri = "\(path)?limit=2&cursor=\(next)"
                }
            }
            #expect(try await walk("/v1/reviews") == created.reversed())
            #expect(try await walk("/v1/places/\(lab)/reviews") == [created[2], created[1], created[0]])
            #expect(try await walk("/v1/users/\(bob.id)/reviews") == [created[3], created[1]])

            let page = try json(try await client.send(.get, "/v1/reviews?limit=1"))
            let cursor = try #require(page["next_cursor"] as? String)
            let foreign = try await client.send(.get, "/v1/places/\(lab)/reviews?cursor=\(cursor)")
            #expect(try problemCode(foreign) == "invalid_cursor")
            #expect(try await client.send(.get, "/v1/places/999/reviews").status == .notFound)
            #expect(try await client.send(.get, "/v1/users/999/reviews").status == .notFound)
            #expect(try problemCode(try await client.send(.get, "/v1/reviews?limit=0")) == "validation_failed")
        }
    }

    @Test(
        "PUT /v1/users/me/avatar sets the avatar and replaces the previous one's files",
        arguments: StoreEngine.available
    )
    func avatar(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            var form = MultipartBody()
            form.file("avatar", TestImages.jpeg(width: 800, height: 800))
            let first = try await client.upload(.put, "/v1/users/me/avatar", form, token: alice.token)
            #expect(first.status == .ok, "\(String(buffer: first.body))")
            let firstURL = try #require(try json(first)["avatar_url"] as? String)
            #expect(firstURL.hasSuffix("/thumbnail.jpg"))
            let served = try await client.execute(uri: firstURL, method: .get)
            #expect(try TestImages.decode(Array(buffer: served.body)).width == 400)

            var second = MultipartBody()
            second.file("avatar", TestImages.transparentPNG())
            let replaced = try await client.upload(.put, "/v1/users/me/avatar", second, token: alice.token)
            let secondURL = try #require(try json(replaced)["avatar_url"] as? String)
            #expect(secondURL != firstURL)
            #expect(try await client.execute(uri: firstURL, method: .get).status == .notFound)
            #expect(try await environment.photoFiles().stored.count == 2)
            #expect(try await environment.reviewRowCounts().photos == 1)
            let profile = try json(try await client.send(.get, "/v1/users/\(alice.id)"))
            #expect(profile["avatar_url"] as? String == secondURL)

            var gif = MultipartBody()
            gif.file("avatar", TestImages.gif)
            let refused = try await client.upload(.put, "/v1/users/me/avatar", gif, token: alice.token)
            #expect(refused.status == .unsupportedMediaType)
            let empty = try await client.upload(.put, "/v1/users/me/avatar", MultipartBody(), token: alice.token)
            #expect(empty.status == .badRequest)
            #expect(try await environment.photoFiles().stored.count == 2)
        }
    }

    @Test(
        "start-up removes photo files no row owns at once, and other files once older than an upload can take",
        arguments: StoreEngine.available)
    func orphanSweep(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .folder)
        let storage = try #require(environment.photoFolder)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            _ = try await client.postReview(place: place, photos: [TestImages.jpeg()], token: alice.token)
        }
        let kept = try await environment.photoFiles().stored
        for name in ["incoming/abc.jpg", "incoming/abc.thumb.jpg", "77.jpg", "77.thumb.jpg", "notes.jpg"] {
            try Data([1, 2, 3]).write(to: storage.root.appendingPathComponent(name))
        }
        // A photo's final name without its row goes at once (final names come only after the
        // commit); files of no photo wait until no upload of an older version can own them.
        #expect(try await storage.sweepOrphans(environment.stores.photos) == 2)
        #expect(!FileManager.default.fileExists(atPath: storage.root.appendingPathComponent("77.jpg").path))
        let later = Timestamp(milliseconds: Timestamp.now().milliseconds + 2 * 3600 * 1000)
        let removed = try await storage.sweepOrphans(environment.stores.photos, now: later)
        #expect(removed == 3)
        let files = try await environment.photoFiles()
        #expect(files.stored == kept)
        #expect(files.incoming.isEmpty)
    }
}
