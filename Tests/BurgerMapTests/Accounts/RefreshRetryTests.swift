import BurgerMap
import BurgerMapCore
import Foundation
import HummingbirdTesting
import Testing

/// A client whose refresh answer was lost sends the same refresh token again.
@Suite("Refresh retries")
struct RefreshRetryTests {
    static func refresh(_ client: some TestClientProtocol, _ token: String) async throws -> TestResponse {
        try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": token])
    }

    /// A registered user's first tokens, its first refresh's answer, and the test clock.
    static func refreshedOnce(
        _ client: some TestClientProtocol, nickname: String
    ) async throws -> (first: String, second: (access: String, refresh: String)) {
        let first = try tokens(try await client.register(email: "\(nickname)@example.com", nickname: nickname))
        let refreshed = try await refresh(client, first.refresh)
        #expect(refreshed.status == .ok)
        return (first.refresh, try tokens(try json(refreshed)))
    }

    @Test(
        "a retry within the grace answers the same refresh token; the chain goes on from it",
        arguments: StoreEngine.available)
    func retryWithinGrace(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let (first, second) = try await Self.refreshedOnce(client, nickname: "retrier")
            clock.advance(milliseconds: 29_000)
            let retried = try await Self.refresh(client, first)
            #expect(retried.status == .ok)
            let again = try tokens(try json(retried))
            #expect(again.refresh == second.refresh)
            let me = try json(try await client.send(.get, "/v1/users/me", token: again.access))
            #expect(me["nickname"] as? String == "retrier")
            #expect(try await client.send(.get, "/v1/users/me", token: second.access).status == .ok)

            // The successor works, once, and the chain goes on.
            let third = try await Self.refresh(client, second.refresh)
            #expect(third.status == .ok)
            let next = try tokens(try json(third))
            #expect(next.refresh != second.refresh && next.refresh != first)
            #expect(try await client.send(.get, "/v1/users/me", token: next.access).status == .ok)
            #expect(try await Self.refresh(client, next.refresh).status == .ok)
        }
    }

    @Test("a retry after the grace revokes the whole login, the successor too", arguments: StoreEngine.available)
    func retryAfterGrace(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let (first, second) = try await Self.refreshedOnce(client, nickname: "late")
            clock.advance(milliseconds: 31_000)
            let late = try await Self.refresh(client, first)
            #expect(late.status == .unauthorized)
            #expect(try problemCode(late) == "refresh_token_invalid")
            let successor = try await Self.refresh(client, second.refresh)
            #expect(successor.status == .unauthorized)
            #expect(try problemCode(successor) == "refresh_token_invalid")
        }
    }

    @Test(
        "a retry after the successor was used revokes the whole login, within the grace too",
        arguments: StoreEngine.available)
    func retryAfterSuccessorUsed(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let (first, second) = try await Self.refreshedOnce(client, nickname: "thief")
            clock.advance(milliseconds: 5_000)
            let third = try await Self.refresh(client, second.refresh)
            #expect(third.status == .ok)
            let next = try tokens(try json(third))
            clock.advance(milliseconds: 5_000)
            let stale = try await Self.refresh(client, first)
            #expect(stale.status == .unauthorized)
            #expect(try problemCode(stale) == "refresh_token_invalid")
            #expect(try problemCode(try await Self.refresh(client, next.refresh)) == "refresh_token_invalid")
            #expect(try problemCode(try await Self.refresh(client, second.refresh)) == "refresh_token_invalid")
        }
    }
}
