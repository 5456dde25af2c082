import BurgerMap
import BurgerMapCore
import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMapSQLite

@Suite("Token life cycle")
struct TokenLifecycleTests {
    @Test(
        "refresh rotates; a reused refresh token revokes the whole login; logout ends it",
        arguments: StoreEngine.available)
    func refreshRotationAndReuse(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let first = try tokens(try await client.register(email: "so@example.com", nickname: "soyeon"))
            let refreshed = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": first.refresh])
            #expect(refreshed.status == .ok)
            let second = try tokens(try json(refreshed))
            #expect(second.refresh != first.refresh)
            #expect(try await client.send(.get, "/v1/users/me", token: second.access).status == .ok)

            // The first token again, after the retry grace: someone holds a copy, so the login
            // ends, the new token too.
            clock.advance(milliseconds: 31_000)
            let reused = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": first.refresh])
            #expect(reused.status == .unauthorized)
            #expect(try problemCode(reused) == "refresh_token_invalid")
            let afterTheft = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": second.refresh])
            #expect(try problemCode(afterTheft) == "refresh_token_invalid")

            // A second login is independent; logout ends it and needs the caller's own token.
            let login = try tokens(
                try json(try await client.login(email: "so@example.com", password: "correct horse battery")))
            let other = try tokens(try await client.register(email: "x@example.com", nickname: "xavier"))
            let foreign = try await client.send(
                .post, "/v1/auth/logout", json: ["refresh_token": login.refresh], token: other.access)
            #expect(try problemCode(foreign) == "refresh_token_invalid")
            let noToken = try await client.send(.post, "/v1/auth/logout", json: ["refresh_token": login.refresh])
            #expect(noToken.status == .unauthorized)
            let logout = try await client.send(
                .post, "/v1/auth/logout", json: ["refresh_token": login.refresh], token: login.access)
            #expect(logout.status == .noContent)
            let afterLogout = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": login.refresh])
            #expect(try problemCode(afterLogout) == "refresh_token_invalid")
            let unknown = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": "made-up"])
            #expect(try problemCode(unknown) == "refresh_token_invalid")
        }
    }

    @Test(
        "an expired access token is 401 token_expired with WWW-Authenticate; refreshing works",
        arguments: StoreEngine.available)
    func expiredAccessToken(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.accessTokenLifetime = .seconds(1)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let body = try await client.register(email: "exp@example.com", nickname: "expiring")
            #expect(body["expires_in"] as? Int == 1)
            let issued = try tokens(body)
            #expect(try await client.send(.get, "/v1/users/me", token: issued.access).status == .ok)
            clock.advance(milliseconds: 2100)
            let expired = try await client.send(.get, "/v1/users/me", token: issued.access)
            #expect(expired.status == .unauthorized)
            #expect(try problemCode(expired) == "token_expired")
            #expect(expired.headers[.wwwAuthenticate]?.hasPrefix("Bearer error=\"invalid_token\"") == true)
            let refreshed = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": issued.refresh])
            let fresh = try tokens(try json(refreshed))
            #expect(try await client.send(.get, "/v1/users/me", token: fresh.access).status == .ok)
        }
    }

    /// A JWT with the given header and claims, signed with `key` (or unsigned).
    static func jwt(header: [String: Any], claims: [String: Any], key: SymmetricKey?) throws -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let signingInput = try [header, claims].map { base64URL(try JSONSerialization.data(withJSONObject: $0)) }
            .joined(separator: ".")
        guard let key else { return signingInput + "." }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
        return signingInput + "." + base64URL(Data(mac))
    }

    @Test(
        "forged, unsigned, malformed and orphaned tokens are 401 unauthorized, never a 500",
        arguments: StoreEngine.available)
    func forgedTokens(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        let realKey = environment.secret.derivedKey(purpose: "access-token-hs256")
        try await environment.withClient { client in
            let body = try await client.register(email: "f@example.com", nickname: "forger")
            let userID = try #require((body["user"] as? [String: Any])?["id"] as? Int)
            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: Any] = ["sub": "\(userID)", "iat": now, "exp": now + 300]
            let genuine = try Self.jwt(header: ["alg": "HS256", "typ": "JWT"], claims: claims, key: realKey)
            #expect(try await client.send(.get, "/v1/users/me", token: genuine).status == .ok)

            let forged = [
                try Self.jwt(
                    header: ["alg": "HS256", "typ": "JWT"], claims: claims, key: SymmetricKey(size: .bits256)),
                try Self.jwt(header: ["alg": "none", "typ": "JWT"], claims: claims, key: nil),
                try Self.jwt(header: ["alg": "HS512", "typ": "JWT"], claims: claims, key: realKey),
                "not.a.jwt", "garbage", String(repeating: "a", count: 10_000),
            ]
            for token in forged {
                let response = try await client.send(.get, "/v1/users/me", token: token)
                #expect(response.status == .unauthorized, "\(token.prefix(40))")
                #expect(try problemCode(response) == "unauthorized")
            }
            let basic = try await client.execute(
                uri: "/v1/users/me", method: .get, headers: [.authorization: "Basic dXNlcjpwYXNz"])
            #expect(basic.status == .unauthorized)
            #expect(try problemCode(basic) == "unauthorized")
            // A token that is fine, for a user who no longer exists. Removed by SQL, which rings
            // nothing: the user's row kept in memory goes once its 2 s are over (SignedInUsers).
            try await environment.execute("DELETE FROM users")
            clock.advance(milliseconds: 2_000)
            let orphaned = try await client.send(.get, "/v1/users/me", token: genuine)
            #expect(orphaned.status == .unauthorized)
            #expect(try problemCode(orphaned) == "unauthorized")
        }
    }

    @Test("no password, token or hash appears in a log line, at any level", arguments: StoreEngine.available)
    func nothingSecretIsLogged(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let logs = CapturedLogs()
        let secrets = try await environment.withClientReturning(logger: logs.logger) { client in
            let password = "hunter2 secret words"
            let body = try await client.register(email: "log@example.com", nickname: "logger", password: password)
            let issued = try tokens(body)
            _ = try await client.login(email: "log@example.com", password: "wrong \(password)")
            let refreshed = try tokens(
                try json(try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": issued.refresh])))
            _ = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": issued.refresh])
            _ = try await client.send(.get, "/v1/users/me", token: refreshed.access)
            return [password, issued.access, issued.refresh, refreshed.access, refreshed.refresh]
        }
        let hash = try await environment.text("SELECT password_hash FROM users")
        let text = logs.text
        #expect(text.contains("/v1/auth/login"), "the requests were logged")
        for secret in secrets + [try #require(hash)] {
            #expect(!text.contains(secret), "\(secret.prefix(12))… appears in the logs")
        }
    }

    @Test("the signing key comes from BURGERMAP_JWT_SECRET, else from the data folder, and survives restarts")
    func signingKey() async throws {
        let environment = try TestEnvironment()
        let first = try ServiceSecret.loadOrCreate(in: environment.folder)
        let again = try ServiceSecret.loadOrCreate(in: environment.folder)
        let fromFolder = try AccessTokens.signingKey(environment: [:], secret: first)
        #expect(fromFolder == (try AccessTokens.signingKey(environment: [:], secret: again)))
        let attributes = try FileManager.default.attributesOfItem(
            atPath: environment.folder.appendingPathComponent("secret.key").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let configured = String(repeating: "k", count: 40)
        let fromEnvironment = try AccessTokens.signingKey(
            environment: ["BURGERMAP_JWT_SECRET": configured], secret: first)
        #expect(fromEnvironment == SymmetricKey(data: Data(configured.utf8)))
        #expect(throws: ConfigurationError.self) {
            try AccessTokens.signingKey(environment: ["BURGERMAP_JWT_SECRET": "short"], secret: first)
        }
    }
}
