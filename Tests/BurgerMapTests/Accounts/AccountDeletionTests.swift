import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Deleting an account")
struct AccountDeletionTests {
    @Test(
        "everything of the account goes in one transaction, every other count stays exact, its files go, its tokens stop",
        arguments: StoreEngine.available)
    func deleteAccount(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.lslp = LFRBApp.settings
        try await environment.withClient { client in
            let aliceTokens = try tokens(try await client.register(email: "alice@example.com", nickname: "alice"))
            let alice = try #require(
                (try json(try await client.send(.get, "/v1/users/me", token: aliceTokens.access))["id"] as? NSNumber)?
                    .int64Value)
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            let added = try await client.addPlace("Alice's Find", token: aliceTokens.access)
            let shared = try await client.addPlace("Shared Burgers", token: bob.token)
            let bobReview = try #require(
                try json(
                    try await client.postReview(
                        place: shared, rating: "4", photos: [TestImages.jpeg()], token: bob.token))["id"]
                    as? Int)
            let aliceReview = try #require(
                try json(
                    try await client.postReview(
                        place: shared, rating: "2", photos: [TestImages.jpeg()], token: aliceTokens.access)
                )["id"] as? Int)
            _ = try await client.postReview(place: added, rating: "5", token: aliceTokens.access)
            for (method, path, token) in [
                (HTTPRequest.Method.put, "/v1/reviews/\(bobReview)/like", aliceTokens.access),
                (.put, "/v1/reviews/\(bobReview)/bookmark", aliceTokens.access),
                (.put, "/v1/reviews/\(aliceReview)/like", bob.token),
                (.put, "/v1/reviews/\(aliceReview)/like", carol.token),
                (.put, "/v1/users/\(bob.id)/follow", aliceTokens.access),
                (.put, "/v1/users/\(alice)/follow", bob.token),
                (.put, "/v1/users/\(bob.id)/follow", carol.token),
            ] {
                #expect(try await client.send(method, path, token: token).status == .ok)
            }
            #expect(
                try await client.send(
                    .post, "/v1/reviews/\(bobReview)/comments", json: ["text": "yum"], token: aliceTokens.access
                )
                .status == .created)
            #expect(
                try await client.send(
                    .post, "/v1/reviews/\(aliceReview)/comments", json: ["text": "really?"], token: bob.token
                )
                .status == .created)
            #expect(
                try await client.send(
                    .post, "/v1/reviews/\(bobReview)/comments", json: ["text": "agreed"], token: carol.token
                )
                .status == .created)
            // A photo uploaded through the app and never posted.
            let app = LFRBApp(client)
            app.accessToken = aliceTokens.access
            #expect(try await app.upload([TestImages.jpeg()]).status == .ok)
            #expect(try await environment.photoFiles().stored.count == 6)

            let wrong = try await client.send(
                .delete, "/v1/users/me", json: ["password": "not the password"], token: aliceTokens.access)
            #expect(wrong.status == .unauthorized)
            #expect(try problemCode(wrong) == "invalid_credentials")
            #expect(try await environment.rowCount("reviews") == 3)
            let deleted = try await client.send(
                .delete, "/v1/users/me", json: ["password": "correct horse battery"], token: aliceTokens.access)
            #expect(deleted.status == .noContent)

            // Her tokens stop at once; a second delete is refused.
            #expect(try await client.send(.get, "/v1/users/me", token: aliceTokens.access).status == .unauthorized)
            let again = try await client.send(
                .delete, "/v1/users/me", json: ["password": "correct horse battery"], token: aliceTokens.access)
            #expect(again.status == .unauthorized)
            let refresh = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": aliceTokens.refresh])
            #expect(refresh.status == .unauthorized)
            // Everything of hers is gone; every count on what stays is exact.
            #expect(try await environment.rowCount("reviews") == 1)
            #expect(try await environment.rowCount("comments") == 1)
            #expect(try await environment.rowCount("review_likes") == 0)
            #expect(try await environment.rowCount("review_bookmarks") == 0)
            #expect(try await environment.rowCount("follows") == 1)
            #expect(try await environment.rowCount("pending_photos") == 0)
            #expect(try await environment.rowCount("photos") == 1)
            #expect(try await environment.photoFiles().stored.count == 2)
            let review = try json(try await client.send(.get, "/v1/reviews/\(bobReview)"))
            #expect(review["like_count"] as? Int == 0 && review["bookmark_count"] as? Int == 0)
            #expect(review["comment_count"] as? Int == 1)
            let bobProfile = try json(try await client.send(.get, "/v1/users/\(bob.id)"))
            #expect(bobProfile["follower_count"] as? Int == 1 && bobProfile["following_count"] as? Int == 0)
            let place = try json(try await client.send(.get, "/v1/places/\(shared)"))
            #expect(place["review_count"] as? Int == 1 && place["rating_avg"] as? Double == 4)
            let kept = try json(try await client.send(.get, "/v1/places/\(added)"))
            #expect(kept["name"] as? String == "Alice's Find" && kept["review_count"] as? Int == 0)
            #expect(try await environment.int("SELECT count(*) FROM places WHERE created_by IS NOT NULL") == 1)
            #expect(try await client.send(.get, "/v1/reviews/\(aliceReview)").status == .notFound)
            // The email and the nickname are free again.
            _ = try await client.register(email: "alice@example.com", nickname: "alice")
        }
    }
}
