import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Moderators, suspensions and the audit log")
struct ModerationTests {
    @Test(
        "a moderator suspends and reinstates an account; the account's tokens, logins and refreshes are refused meanwhile",
        arguments: StoreEngine.available)
    func suspension(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bobTokens = try tokens(try await client.register(email: "bob@example.com", nickname: "bob"))
            let bob = try #require(
                (try json(try await client.send(.get, "/v1/users/me", token: bobTokens.access))["id"] as? NSNumber)?
                    .int64Value)
            #expect(
                try await environment.stores.moderation.setModerator(
                    email: "nobody@example.com", granted: true, at: .now()) == .userMissing)
            // Not a moderator yet: 403 on every moderator route.
            let early = try await client.send(
                .put, "/v1/moderation/users/\(bob)/suspension", json: [:], token: alice.token)
            #expect(early.status == .forbidden)
            #expect(try problemCode(early) == "forbidden")
            #expect(try await client.send(.get, "/v1/moderation/audit", token: alice.token).status == .forbidden)
            #expect(
                try await environment.stores.moderation.setModerator(
                    email: "ALICE@example.com", granted: true, at: .now()) == .done)

            let suspended = try await client.send(
                .put, "/v1/moderation/users/\(bob)/suspension", json: ["reason": "spam"], token: alice.token)
            #expect(suspended.status == .ok)
            #expect(try json(suspended)["suspended"] as? Bool == true)
            // Bob's token is refused at once, on reads and writes; he cannot log in or refresh.
            let me = try await client.send(.get, "/v1/users/me", token: bobTokens.access)
            #expect(me.status == .forbidden)
            #expect(try json(me)["detail"] as? String == "This account is suspended by a moderator.")
            let place = try await client.addPlace("Anywhere", token: alice.token)
            #expect(try await client.postReview(place: place, token: bobTokens.access).status == .forbidden)
            let login = try await client.login(email: "bob@example.com", password: "correct horse battery")
            #expect(login.status == .forbidden)
            let refresh = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": bobTokens.refresh])
            #expect(refresh.status == .unauthorized)
            #expect(try await environment.reviewRowCounts() == (0, 0))

            #expect(
                try await client.send(
                    .put, "/v1/moderation/users/\(alice.id)/suspension", json: [:], token: alice.token
                )
                .status == .badRequest)
            #expect(
                try await client.send(.put, "/v1/moderation/users/999999/suspension", json: [:], token: alice.token)
                    .status == .notFound)

            let reinstated = try await client.send(
                .delete, "/v1/moderation/users/\(bob)/suspension", token: alice.token)
            #expect(reinstated.status == .ok)
            #expect(try json(reinstated)["suspended"] as? Bool == false)
            #expect(try await client.login(email: "bob@example.com", password: "correct horse battery").status == .ok)

            // The audit log, newest first, one per page.
            var actions: [String] = []
            var cursor: String?
            repeat {
                let path = "/v1/moderation/audit?limit=1" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try json(try await client.send(.get, path, token: alice.token))
                let items = try #require(page["items"] as? [[String: Any]])
                for item in items {
                    actions.append(
                        "\(item["action"]!) \(item["target_id"]!) by \(item["moderator_id"] is NSNull ? "operator" : "\(item["moderator_id"]!)")"
                    )
                }
                cursor = page["next_cursor"] as? String
            } while cursor != nil
            #expect(
                actions == [
                    "unsuspend \(bob) by \(alice.id)", "suspend \(bob) by \(alice.id)",
                    "grant_moderator \(alice.id) by operator",
                ])
            let log = try json(try await client.send(.get, "/v1/moderation/audit", token: alice.token))
            let suspension = try #require(
                (log["items"] as? [[String: Any]])?.first { $0["action"] as? String == "suspend" })
            #expect(suspension["reason"] as? String == "spam")
        }
    }
}
