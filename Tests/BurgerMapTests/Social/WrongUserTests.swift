import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Every write route with another user's token")
struct WrongUserTests {
    @Test(
        "someone else's review, comment, like, bookmark, follow, profile and login stay as they were",
        arguments: StoreEngine.available)
    func everyWriteRoute(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let aliceTokens = try tokens(try await client.register(email: "alice@example.com", nickname: "alice"))
            let alice = aliceTokens.access
            let aliceID = try #require(
                (try json(try await client.send(.get, "/v1/users/me", token: alice))["id"] as? NSNumber)?.int64Value)
            let bob = try await client.member("bob")
            let mallory = try await client.member("mallory")
            let place = try await client.addPlace("Patty Lab", token: alice)
            let review = try await client.reviewID(place: place, text: "Alice's review", token: alice)
            let commentResponse = try await client.send(
                .post, "/v1/reviews/\(review)/comments", json: ["text": "Bob's comment"], token: bob.token)
            let comment = try #require((try json(commentResponse)["id"] as? NSNumber)?.int64Value)
            for path in ["/v1/reviews/\(review)/like", "/v1/reviews/\(review)/bookmark", "/v1/users/\(aliceID)/follow"]
            {
                #expect(try await client.send(.put, path, token: bob.token).status == .ok)
            }

            // Routes on objects that belong to someone else: 403 problem documents.
            let forbidden: [(HTTPRequest.Method, String, [String: Any]?)] = [
                (.patch, "/v1/reviews/\(review)", ["text": "defaced", "rating": 1]),
                (.delete, "/v1/reviews/\(review)", nil),
                (.patch, "/v1/comments/\(comment)", ["text": "defaced"]),
                (.delete, "/v1/comments/\(comment)", nil),
            ]
            for (method, path, body) in forbidden {
                let response = try await client.send(method, path, json: body, token: mallory.token)
                #expect(response.status == .forbidden, "\(method) \(path)")
                #expect(try problemCode(response) == "forbidden")
            }
            // The review's author may delete a comment on it but not edit it.
            let aliceEdit = try await client.send(.patch, "/v1/comments/\(comment)", json: ["text": "x"], token: alice)
            #expect(aliceEdit.status == .forbidden)

            // Toggles and "me" routes act on the caller only.
            for path in ["/v1/reviews/\(review)/like", "/v1/reviews/\(review)/bookmark", "/v1/users/\(aliceID)/follow"]
            {
                #expect(try await client.send(.put, path, token: mallory.token).status == .ok)
                #expect(try await client.send(.delete, path, token: mallory.token).status == .ok)
            }
            #expect(
                try await client.send(.patch, "/v1/users/me", json: ["bio": "mallory was here"], token: mallory.token)
                    .status == .ok)
            var avatar = MultipartBody()
            avatar.file("avatar", TestImages.jpeg())
            #expect(try await client.upload(.put, "/v1/users/me/avatar", avatar, token: mallory.token).status == .ok)
            let logout = try await client.send(
                .post, "/v1/auth/logout", json: ["refresh_token": aliceTokens.refresh], token: mallory.token)
            #expect(logout.status == .unauthorized)
            let ownComment = try await client.send(
                .post, "/v1/reviews/\(review)/comments", json: ["text": "Mallory's own"], token: mallory.token)
            #expect((try json(ownComment)["author"] as? [String: Any])?["nickname"] as? String == "mallory")

            let reviewBody = try json(try await client.send(.get, "/v1/reviews/\(review)", token: bob.token))
            #expect(reviewBody["text"] as? String == "Alice's review")
            #expect(reviewBody["rating"] as? Int == 5)
            #expect(reviewBody["like_count"] as? Int == 1)
            #expect(reviewBody["bookmark_count"] as? Int == 1)
            #expect(reviewBody["liked_by_me"] as? Bool == true)
            #expect(reviewBody["bookmarked_by_me"] as? Bool == true)
            #expect(reviewBody["comment_count"] as? Int == 2)
            let comments = try await client.walk("/v1/reviews/\(review)/comments", limit: 10)
            #expect(comments.map { $0["text"] as? String } == ["Bob's comment", "Mallory's own"])
            let profile = try json(try await client.send(.get, "/v1/users/\(aliceID)", token: bob.token))
            #expect(profile["follower_count"] as? Int == 1)
            #expect(profile["is_following"] as? Bool == true)
            #expect(profile["bio"] is NSNull)
            #expect(profile["avatar_url"] is NSNull)
            let refreshed = try await client.send(
                .post, "/v1/auth/refresh", json: ["refresh_token": aliceTokens.refresh])
            #expect(refreshed.status == .ok)
        }
    }
}
