import Foundation
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("The signed-in users kept in memory")
struct SignedInUsersTests {
    @Test(
        "a token's user is read again after any write of the service at once, and after a change by SQL within 2 s",
        arguments: StoreEngine.available)
    func keptUntilAWriteOrTwoSeconds(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            #expect(try await client.send(.get, "/v1/users/me", token: bob.token).status == .ok)

            // Suspended by SQL (as another program would): nothing rang, so the row read a
            // moment ago still answers, until its 2 s are over.
            try await environment.execute("UPDATE users SET suspended_at = 1 WHERE id = \(bob.id)")
            clock.advance(milliseconds: 1_999)
            #expect(try await client.send(.get, "/v1/users/me", token: bob.token).status == .ok)
            clock.advance(milliseconds: 1)
            let suspended = try await client.send(.get, "/v1/users/me", token: bob.token)
            #expect(suspended.status == .forbidden)
            #expect(try json(suspended)["detail"] as? String == "This account is suspended by a moderator.")

            // Reinstated by SQL, then any write of the service (alice adds a place): bob's row is
            // read again at once, without waiting for the 2 s.
            try await environment.execute("UPDATE users SET suspended_at = NULL WHERE id = \(bob.id)")
            #expect(try await client.send(.get, "/v1/users/me", token: bob.token).status == .forbidden)
            _ = try await client.addPlace("Anywhere", token: alice.token)
            #expect(try await client.send(.get, "/v1/users/me", token: bob.token).status == .ok)

            // A moderator role granted outside the routes (`burgermap admin`'s store call) rings
            // too: alice's next request is a moderator's.
            #expect(try await client.send(.get, "/v1/moderation/audit", token: alice.token).status == .forbidden)
            #expect(
                try await environment.stores.moderation.setModerator(
                    email: "alice@example.com", granted: true, at: .now()) == .done)
            #expect(try await client.send(.get, "/v1/moderation/audit", token: alice.token).status == .ok)
        }
    }
}
