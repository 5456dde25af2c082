import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Follows")
struct FollowTests {
    @Test(
        "follow toggles are idempotent; profiles show exact counts and the viewer's is_following",
        arguments: StoreEngine.available)
    func togglesAndProfiles(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            for _ in 0..<2 {
                let followed = try json(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: bob.token))
                #expect(followed["following"] as? Bool == true)
                #expect(followed["follower_count"] as? Int == 1)
            }
            #expect(
                try json(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: carol.token))[
                    "follower_count"] as? Int == 2)
            #expect(try await client.send(.put, "/v1/users/\(carol.id)/follow", token: bob.token).status == .ok)

            let seenByBob = try json(try await client.send(.get, "/v1/users/\(alice.id)", token: bob.token))
            #expect(seenByBob["follower_count"] as? Int == 2)
            #expect(seenByBob["following_count"] as? Int == 0)
            #expect(seenByBob["is_following"] as? Bool == true)
            #expect(try json(try await client.send(.get, "/v1/users/\(alice.id)"))["is_following"] as? Bool == false)
            let bobsOwn = try json(try await client.send(.get, "/v1/users/me", token: bob.token))
            #expect(bobsOwn["following_count"] as? Int == 2)

            for _ in 0..<2 {
                let unfollowed = try json(
                    try await client.send(.delete, "/v1/users/\(alice.id)/follow", token: bob.token))
                #expect(unfollowed["following"] as? Bool == false)
                #expect(unfollowed["follower_count"] as? Int == 1)
            }
            #expect(
                try json(try await client.send(.get, "/v1/users/\(alice.id)", token: bob.token))["is_following"]
                    as? Bool == false)
        }
    }

    @Test(
        "followers and following list newest follow first, keyset-paged, with per-user cursors",
        arguments: StoreEngine.available)
    func lists(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let star = try await client.member("star")
            var fans: [(token: String, id: Int64)] = []
            for index in 0..<5 {
                let fan = try await client.member("fan\(index)")
                fans.append(fan)
                #expect(try await client.send(.put, "/v1/users/\(star.id)/follow", token: fan.token).status == .ok)
                clock.advance(milliseconds: 3)
            }
            #expect(try await client.send(.put, "/v1/users/\(fans[0].id)/follow", token: star.token).status == .ok)
            #expect(try await client.send(.put, "/v1/users/\(fans[3].id)/follow", token: star.token).status == .ok)

            let followers = try await client.walk("/v1/users/\(star.id)/followers", limit: 2)
            #expect(ids(followers) == fans.reversed().map(\.id))
            #expect(Set(followers.first?.keys.map { $0 } ?? []) == ["id", "nickname", "avatar_url"])
            #expect(ids(try await client.walk("/v1/users/\(star.id)/following", limit: 1)) == [fans[3].id, fans[0].id])
            #expect(ids(try await client.walk("/v1/users/\(fans[0].id)/following", limit: 5)) == [star.id])

            let page = try json(try await client.send(.get, "/v1/users/\(star.id)/followers?limit=1"))
            let cursor = try #require(page["next_cursor"] as? String)
            for path in ["/v1/users/\(star.id)/following", "/v1/users/\(fans[0].id)/followers", "/v1/reviews"] {
                #expect(try problemCode(try await client.send(.get, "\(path)?cursor=\(cursor)")) == "invalid_cursor")
            }
            let tampered = cursor.replacingOccurrences(of: ".", with: "A.")
            #expect(
                try problemCode(try await client.send(.get, "/v1/users/\(star.id)/followers?cursor=\(tampered)"))
                    == "invalid_cursor")
            #expect(try await client.send(.get, "/v1/users/999999/followers").status == .notFound)
            #expect(try await client.send(.get, "/v1/users/\(star.id)/following?limit=0").status == .badRequest)
        }
    }

    @Test(
        "following yourself is 400 (unfollowing yourself answers following false), a missing user 404, without a token 401; nothing is stored",
        arguments: StoreEngine.available)
    func badInput(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            for method: HTTPRequest.Method in [.put, .delete] {
                let yourself = try await client.send(method, "/v1/users/\(alice.id)/follow", token: alice.token)
                if method == .put {
                    #expect(yourself.status == .badRequest)
                    #expect(try problemCode(yourself) == "validation_failed")
                } else {
                    #expect(yourself.status == .ok)
                    #expect(try json(yourself)["following"] as? Bool == false)
                }
                for id in ["999999", "zero", "0"] {
                    let missing = try await client.send(method, "/v1/users/\(id)/follow", token: alice.token)
                    #expect(missing.status == .notFound)
                    #expect(try problemCode(missing) == "not_found")
                }
                #expect(try await client.send(method, "/v1/users/\(alice.id)/follow").status == .unauthorized)
            }
            #expect(try await environment.rowCount("follows") == 0)
            let me = try json(try await client.send(.get, "/v1/users/me", token: alice.token))
            #expect(me["follower_count"] as? Int == 0)
            #expect(me["following_count"] as? Int == 0)
        }
    }
}
