import AsyncHTTPClient
import BurgerMap
import BurgerMapCore
import BurgerMapObjectStorage
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// `burgermap photos migrate`: the folder's photos copied into a real bucket, verified, and
/// served from it by a service switched over to the bucket, with the same URLs and ETags.
@Suite("photos migrated from the folder to a bucket")
struct PhotoMigrationTests {
    @Test(
        "every photo and avatar is copied once, resumably, and served alike after the switch",
        arguments: StoreEngine.available)
    func migrate(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .folder)
        let folder = try #require(environment.photoFolder)
        // Uploads on the folder store: a review with two photos, and an avatar.
        let (photoIDs, token) = try await environment.withClientReturning(logger: .init(label: "migrate")) { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try json(
                try await client.postReview(
                    place: place, photos: [TestImages.jpeg(), TestImages.jpeg(width: 200, height: 320)],
                    token: alice.token))
            var avatar = MultipartBody()
            avatar.file("avatar", TestImages.jpeg(width: 64, height: 64))
            #expect(try await client.upload(.put, "/v1/users/me/avatar", avatar, token: alice.token).status == .ok)
            let ids = try #require(review["photos"] as? [[String: Any]]).compactMap {
                ($0["id"] as? NSNumber)?.int64Value
            }
            return (ids, alice.token)
        }
        let before = try await environment.withClientReturning(logger: .init(label: "migrate")) { client in
            var tags: [Int64: String] = [:]
            for id in photoIDs {
                tags[id] = try await client.execute(uri: "/v1/photos/\(id).jpg", method: .get).headers[.eTag]
            }
            return tags
        }

        let client = try TestS3.client()
        let prefix = TestS3.newPrefix()
        let migration = PhotoMigration(client: client, prefix: prefix, folder: folder.root)
        let images = try migration.images()
        #expect(images.count == 6)
        // An interrupted run: the first two images only; then a full run copies the rest.
        for image in images.prefix(2) { #expect(try await migration.copy(image).copied) }
        var outcomes: [Bool] = []
        for image in images { outcomes.append(try await migration.copy(image).copied) }
        #expect(outcomes == [false, false, true, true, true, true])
        for image in images { #expect(try await !migration.copy(image).copied) }
        // The folder is untouched.
        #expect(try await environment.photoFiles().stored.count == 6)

        // The service switched over to the bucket serves the same URLs with the same tags.
        let bucket = PhotoBucket(client: client, prefix: prefix)
        let switched = buildRouter(
            try await buildDependencies(
                environment.configuration, stores: environment.stores, media: MediaServices(storage: bucket)))
        try await Application(router: switched).test(.router) { client in
            for id in photoIDs {
                let response = try await client.execute(uri: "/v1/photos/\(id).jpg", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == before[id])
            }
            let me = try json(try await client.send(.get, "/v1/users/me", token: token))
            let avatar = try #require(me["avatar_url"] as? String)
            #expect(try await client.execute(uri: avatar, method: .get).status == .ok)
        }
    }
}

extension PhotoMigration.Outcome {
    var copied: Bool {
        if case .copied = self { return true }
        return false
    }
}
