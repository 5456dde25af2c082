import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Trust and safety on the LookForRealBurger app's routes: what its lists embed honours blocks
/// and hidden content as the native lists do, and its withdraw deletes the account.
@Suite("The LookForRealBurger routes: blocks, hidden content and withdrawal")
struct LFRBSafetyTests {
    @Test(
        "posts, their embedded reviews and comments, the map load and profiles leave out blocked users and hidden content",
        arguments: StoreEngine.available)
    func embeddedListsHonourBlocksAndHiding(engine: StoreEngine) async throws {
        let environment = try await LFRBScreenTests.environment(engine, places: 0)
        try await environment.withClient { client in
            let troll = try await client.member("troll")
            let nice = try await client.member("nice")
            let moderator = try await client.member("mod")
            #expect(
                try await environment.stores.moderation.setModerator(
                    email: "mod@example.com", granted: true, at: .now()) == .done)
            let place = try await client.addPlace("App Burgers", token: nice.token)
            func review(_ text: String, _ token: String) async throws -> Int {
                try #require(
                    try json(try await client.postReview(place: place, text: text, token: token))["id"] as? Int)
            }
            let trolls = try await review("troll review", troll.token)
            let nices = try await review("nice review", nice.token)
            let spam = try await review("spam review", nice.token)
            for (text, token) in [("troll comment", troll.token), ("nice comment", nice.token)] {
                #expect(
                    try await client.send(.post, "/v1/reviews/\(nices)/comments", json: ["text": text], token: token)
                        .status == .created)
            }
            let app = LFRBApp(client)
            let me = try await app.joinAndLogIn("diner")
            #expect(try await client.send(.put, "/v1/users/\(troll.id)/block", token: app.accessToken).status == .ok)
            #expect(
                try await client.send(.put, "/v1/moderation/reviews/\(spam)/hidden", json: [:], token: moderator.token)
                    .status == .ok)

            let restaurant = try app.decode(LFRBPost.self, try await app.call(.get, "v1/posts/place-\(place)"))
            #expect(restaurant.comments.map(\.comment_id) == ["review-\(nices)"])
            let map = try app.decode(
                LFRBPostList.self,
                try await app.call(
                    .get, "v1/posts", query: ["limit": "300000", "product_id": LFRBProduct.restaurant]))
            #expect(map.data.map { $0.comments.map(\.comment_id) } == [["review-\(nices)"]])
            let feed = try app.decode(
                LFRBPostList.self,
                try await app.call(.get, "v1/posts", query: ["limit": "21", "product_id": LFRBProduct.review]))
            #expect(feed.data.map(\.post_id) == ["review-\(nices)"])
            let post = try app.decode(LFRBPost.self, try await app.call(.get, "v1/posts/review-\(nices)"))
            #expect(post.comments.map(\.content) == ["nice comment"])
            #expect(try await app.call(.get, "v1/posts/review-\(spam)").status.code == 410)
            #expect(try await app.call(.get, "v1/posts/review-\(trolls)").status.code == 200)
            let trollProfile = try app.decode(
                LFRBProfile.self, try await app.call(.get, "v1/users/\(troll.id)/profile"))
            #expect(trollProfile.posts.isEmpty)
            let niceProfile = try app.decode(LFRBProfile.self, try await app.call(.get, "v1/users/\(nice.id)/profile"))
            #expect(niceProfile.posts == ["review-\(nices)"])
            // The author still sees her hidden review; others without blocks see the troll's.
            let author = LFRBApp(client)
            author.accessToken = nice.token
            let own = try author.decode(LFRBProfile.self, try await author.call(.get, "v1/users/me/profile"))
            #expect(own.posts == ["review-\(spam)", "review-\(nices)"])
            let ownPost = try author.decode(LFRBPost.self, try await author.call(.get, "v1/posts/review-\(nices)"))
            #expect(ownPost.comments.map(\.content) == ["nice comment", "troll comment"])
            #expect(me.nick == "diner")
        }
    }

    @Test("withdraw deletes the caller's account and answers who it was", arguments: StoreEngine.available)
    func withdraw(engine: StoreEngine) async throws {
        let environment = try await LFRBScreenTests.environment(engine, places: 0)
        try await environment.withClient { client in
            let app = LFRBApp(client)
            let me = try await app.joinAndLogIn("leaver")
            _ = try await app.writeReview(
                kakaoID: "K1", name: "Leaving Burgers", lng: "127.0", lat: "37.5", images: [TestImages.jpeg()],
                title: "last one", text: "goodbye burger", rating: 4)
            #expect(try await environment.photoFiles().stored.count == 2)
            let gone = try app.decode(LFRBJoin.self, try await app.call(.get, "v1/users/withdraw"))
            #expect(gone.user_id == me.user_id && gone.email == "leaver@example.com" && gone.nick == "leaver")
            #expect(try await app.call(.get, "v1/users/me/profile").status.code == 401)
            #expect(try await app.refresh().status.code == 418)
            #expect(try await environment.rowCount("reviews") == 0)
            #expect(try await environment.rowCount("users") == 0)
            #expect(try await environment.photoFiles().stored.isEmpty)
            // The restaurant the app added stays, without its creator.
            #expect(try await environment.rowCount("places") == 1)
            #expect(try await app.call(.get, "v1/users/withdraw").status.code == 401)
        }
    }
}
