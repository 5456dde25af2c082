import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMapSQLite

@Suite("Registration and login")
struct AuthRoutesTests {
    @Test(
        "register answers tokens that work, stores only a bcrypt hash, and shows profiles",
        arguments: StoreEngine.available)
    func registerAndUseTokens(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let body = try await client.register(email: "Mina@Example.com", nickname: "mina")
            #expect(body["token_type"] as? String == "Bearer")
            #expect(body["expires_in"] as? Int == 300)
            let user = try #require(body["user"] as? [String: Any])
            #expect(user["email"] as? String == "Mina@Example.com")
            #expect(user["nickname"] as? String == "mina")
            #expect(user["follower_count"] as? Int == 0 && user["is_following"] as? Bool == false)
            #expect(user["bio"] is NSNull && user["avatar_url"] is NSNull)
            let (access, refresh) = try tokens(body)
            #expect(
                !String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
                    .contains("correct horse"))

            let me = try await client.send(.get, "/v1/users/me", token: access)
            #expect(me.status == .ok)
            #expect(try json(me)["id"] as? Int == user["id"] as? Int)
            #expect(try json(me)["email"] as? String == "Mina@Example.com")

            let profile = try await client.send(.get, "/v1/users/\(user["id"] as? Int ?? 0)")
            #expect(profile.status == .ok)
            #expect(try json(profile)["nickname"] as? String == "mina")
            #expect(try json(profile)["email"] == nil)
            #expect(try await client.send(.get, "/v1/users/999").status == .notFound)

            let hash = try #require(try await environment.text("SELECT password_hash FROM users"))
            // bcrypt (cost 10) of the password's HMAC-SHA-256 (`PasswordHasher`).
            #expect(hash.hasPrefix("$bm2$$2b$10$") && !hash.contains("correct"))
            // One refresh token stored, as its 32-byte hash, not the token's \(refresh.utf8.count) bytes.
            #expect(try await environment.rowCount("refresh_tokens") == 1)
            #expect(try await environment.int("SELECT count(*) FROM refresh_tokens WHERE length(token_hash) = 32") == 1)
        }
    }

    @Test(
        "emails and nicknames are unique ignoring case, also when registrations race", arguments: StoreEngine.available)
    func uniqueness(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            _ = try await client.register(email: "joon@example.com", nickname: "Joon")
            let sameEmail = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "JOON@example.COM", "password": "another password", "nickname": "other"])
            #expect(sameEmail.status == .conflict)
            #expect(try problemCode(sameEmail) == "conflict")
            let sameNickname = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "else@example.com", "password": "another password", "nickname": "jOOn"])
            #expect(sameNickname.status == .conflict)

            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        try await client.send(
                            .post, "/v1/auth/register",
                            json: [
                                "email": "race@example.com", "password": "password \(index)",
                                "nickname": "racer\(index)",
                            ]
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 1)
            #expect(statuses.filter { $0 == .conflict }.count == 3)
        }
    }

    @Test("bad bodies answer problem documents naming the fields, never a 500", arguments: StoreEngine.available)
    func badBodies(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let missing = try await client.send(.post, "/v1/auth/register", json: [:])
            #expect(missing.status == .badRequest)
            let fields = try #require(try json(missing)["errors"] as? [[String: Any]]).compactMap {
                $0["field"] as? String
            }
            #expect(Set(fields) == ["email", "password", "nickname"])

            let invalid = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "not-an-email", "password": "short", "nickname": " padded"])
            let errors = try #require(try json(invalid)["errors"] as? [[String: Any]])
            #expect(errors.map { $0["code"] as? String } == ["invalid", "too_short", "surrounding_space"])

            let long = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "a@b.co", "password": String(repeating: "x", count: 129), "nickname": "n\u{7}x"])
            let longErrors = try #require(try json(long)["errors"] as? [[String: Any]])
            // A control character answers for itself, before the fields' own rules (`StrictJSON`).
            #expect(longErrors.map { $0["code"] as? String } == ["control_characters"])
            #expect(longErrors.map { $0["field"] as? String } == ["nickname"])

            let wrongType = try await client.send(
                .post, "/v1/auth/register", json: ["email": 5, "password": "password", "nickname": "nick"])
            #expect(try problemCode(wrongType) == "validation_failed")
            #expect((try json(wrongType)["errors"] as? [[String: Any]])?.first?["field"] as? String == "email")

            for bytes in [
                Array("{\"email\": ".utf8), [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], Array("[1,2]".utf8),
            ] {
                let response = try await client.execute(
                    uri: "/v1/auth/login", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(bytes: bytes))
                #expect(response.status == .badRequest)
                #expect(try problemCode(response) == "invalid_json")
            }
            let form = try await client.execute(
                uri: "/v1/auth/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "email=a&password=b"))
            #expect(form.status == .unsupportedMediaType)
            let huge = try await client.execute(
                uri: "/v1/auth/login", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"email\": \"" + String(repeating: "a", count: 100_000) + "\"}"))
            #expect(huge.status == .contentTooLarge)
            #expect(try problemCode(huge) == "payload_too_large")
        }
    }

    @Test(
        "a wrong password and an unknown email get the same answer; failures are throttled",
        arguments: StoreEngine.available)
    func loginAndThrottling(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.loginThrottle = LoginThrottle.Policy(
            perAccountClient: 3, perClient: 100, window: .seconds(600), firstBlock: .seconds(600))
        try await environment.withClient { client in
            _ = try await client.register(email: "ha@example.com", nickname: "haneul", password: "right password")
            let good = try await client.login(email: "HA@example.com", password: "right password")
            #expect(good.status == .ok)
            #expect(try json(good)["access_token"] is String)

            let wrong = try await client.login(email: "ha@example.com", password: "wrong password")
            let unknown = try await client.login(email: "nobody@example.com", password: "wrong password")
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(try problemCode(wrong) == "invalid_credentials")
            #expect(String(buffer: wrong.body) == String(buffer: unknown.body))

            for _ in 0..<2 {
                _ = try await client.login(email: "ha@example.com", password: "wrong password")
                _ = try await client.login(email: "nobody@example.com", password: "wrong password")
            }
            for email in ["ha@example.com", "nobody@example.com"] {
                let blocked = try await client.login(email: email, password: "right password")
                #expect(blocked.status == .tooManyRequests)
                #expect(try problemCode(blocked) == "rate_limited")
                let retryAfter = try #require(blocked.headers[.retryAfter].flatMap { Int($0) })
                #expect(retryAfter > 500 && retryAfter <= 600)
            }
            let other = try await client.login(email: "someone@example.com", password: "wrong password")
            #expect(other.status == .unauthorized)
        }
    }
}
