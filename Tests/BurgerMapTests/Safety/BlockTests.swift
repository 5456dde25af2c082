import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Blocking")
struct BlockTests {
    /// The texts of a review list, as `token`'s holder (or anyone) sees it.
    static func texts(_ client: any TestClientProtocol, _ path: String, token: String?) async throws -> [String] {
        let page = try json(try await client.send(.get, path, token: token))
        return try #require(page["items"] as? [[String: Any]]).compactMap { $0["text"] as? String }
    }

    @Test(
        "a block ends follows both ways, hides each side's reviews and comments from the other, and refuses their interactions",
        arguments: StoreEngine.available)
    func blocking(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.lslp = LFRBApp.settings
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            let place = try await client.addPlace("Neutral Ground", token: carol.token)
            func review(_ text: String, _ token: String) async throws -> Int {
                try #require(
                    try json(try await client.postReview(place: place, text: text, token: token))["id"] as? Int)
            }
            let bobs = try await review("bob's", bob.token)
            let alices = try await review("alice's", alice.token)
            let carols = try await review("carol's", carol.token)
            for (method, path, token) in [
                (HTTPRequest.Method.put, "/v1/users/\(alice.id)/follow", bob.token),
                (.put, "/v1/users/\(bob.id)/follow", alice.token),
                (.put, "/v1/reviews/\(bobs)/like", alice.token),
            ] {
                #expect(try await client.send(method, path, token: token).status == .ok)
            }
            for (text, token) in [("from bob", bob.token), ("from alice", alice.token)] {
                let comment = try await client.send(
                    .post, "/v1/reviews/\(carols)/comments", json: ["text": text], token: token)
                #expect(comment.status == .created)
            }

            let blocked = try await client.send(.put, "/v1/users/\(bob.id)/block", token: alice.token)
            #expect(blocked.status == .ok)
            #expect(try json(blocked)["blocked"] as? Bool == true)
            #expect(try await client.send(.put, "/v1/users/\(bob.id)/block", token: alice.token).status == .ok)
            #expect(
                try await client.send(.put, "/v1/users/\(alice.id)/block", token: alice.token).status == .badRequest)
            #expect(try await client.send(.put, "/v1/users/999999/block", token: alice.token).status == .notFound)
            let unblockSelf = try await client.send(.delete, "/v1/users/\(alice.id)/block", token: alice.token)
            #expect(unblockSelf.status == .ok)

            // Follows are gone both ways, counts with them.
            let aliceProfile = try json(try await client.send(.get, "/v1/users/\(alice.id)"))
            #expect(aliceProfile["follower_count"] as? Int == 0 && aliceProfile["following_count"] as? Int == 0)
            // Each side stops seeing the other; others see everything; counts stay global.
            #expect(try await Self.texts(client, "/v1/reviews", token: alice.token) == ["carol's", "alice's"])
            #expect(try await Self.texts(client, "/v1/reviews", token: bob.token) == ["carol's", "bob's"])
            #expect(try await Self.texts(client, "/v1/reviews", token: carol.token) == ["carol's", "alice's", "bob's"])
            #expect(try await Self.texts(client, "/v1/reviews", token: nil) == ["carol's", "alice's", "bob's"])
            #expect(
                try await Self.texts(client, "/v1/places/\(place)/reviews", token: bob.token) == ["carol's", "bob's"])
            #expect(try await Self.texts(client, "/v1/users/\(bob.id)/reviews", token: alice.token).isEmpty)
            #expect(try await Self.texts(client, "/v1/users/\(bob.id)/reviews", token: nil) == ["bob's"])
            #expect(
                try await Self.texts(client, "/v1/reviews/\(carols)/comments", token: alice.token) == ["from alice"])
            #expect(try await Self.texts(client, "/v1/reviews/\(carols)/comments", token: bob.token) == ["from bob"])
            #expect(
                try await Self.texts(client, "/v1/reviews/\(carols)/comments", token: nil) == [
                    "from bob", "from alice",
                ])
            #expect(try await Self.texts(client, "/v1/me/likes", token: alice.token).isEmpty)
            let carolsReview = try json(try await client.send(.get, "/v1/reviews/\(carols)"))
            #expect(carolsReview["comment_count"] as? Int == 2)
            // Neither may follow, like, bookmark or comment on the other; taking a like back is fine.
            for (method, path, token) in [
                (HTTPRequest.Method.put, "/v1/users/\(alice.id)/follow", bob.token),
                (.put, "/v1/users/\(bob.id)/follow", alice.token),
                (.put, "/v1/reviews/\(alices)/like", bob.token),
                (.put, "/v1/reviews/\(bobs)/bookmark", alice.token),
            ] {
                let refused = try await client.send(method, path, token: token)
                #expect(refused.status == .forbidden, "\(method) \(path)")
            }
            let comment = try await client.send(
                .post, "/v1/reviews/\(alices)/comments", json: ["text": "hey"], token: bob.token)
            #expect(comment.status == .forbidden)
            #expect(try await client.send(.delete, "/v1/reviews/\(bobs)/like", token: alice.token).status == .ok)
            let app = LFRBApp(client)
            app.accessToken = bob.token
            let appLike = try await app.call(.post, "v1/posts/review-\(alices)/like", json: ["like_status": true])
            #expect(appLike.status.code == 403)
            // The block list: the blocker's only.
            let aliceBlocks = try json(try await client.send(.get, "/v1/me/blocks", token: alice.token))
            #expect((aliceBlocks["items"] as? [[String: Any]])?.map { $0["nickname"] as? String } == ["bob"])
            let bobBlocks = try json(try await client.send(.get, "/v1/me/blocks", token: bob.token))
            #expect((bobBlocks["items"] as? [Any])?.isEmpty == true)

            // Paging while blocks change: no review twice, none skipped of those always visible.
            var seen: [String] = []
            var cursor: String?
            var turn = 0
            repeat {
                let path = "/v1/reviews?limit=1" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try json(try await client.send(.get, path, token: alice.token))
                seen += try #require(page["items"] as? [[String: Any]]).compactMap { $0["text"] as? String }
                cursor = page["next_cursor"] as? String
                turn += 1
                if turn == 1 {
                    #expect(
                        try await client.send(.delete, "/v1/users/\(bob.id)/block", token: alice.token).status == .ok)
                }
            } while cursor != nil
            #expect(seen == ["carol's", "alice's", "bob's"])
            #expect(try await Self.texts(client, "/v1/reviews", token: bob.token) == ["carol's", "alice's", "bob's"])
        }
    }
}
