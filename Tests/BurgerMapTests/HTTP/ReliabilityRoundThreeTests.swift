import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap

/// Ids as the service writes them, and the headers every answer or every token answer carries.
@Suite("Canonical ids and answer headers")
struct ReliabilityRoundThreeTests {
    @Test(
        "an id spelt with a sign or a leading zero names no review, photo or place: 404",
        arguments: StoreEngine.available)
    func canonicalIDs(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let ana = try await client.member("ana")
            let place = try await client.addPlace("Patty Place", token: ana.token)
            let created = try await client.postReview(place: place, photos: [TestImages.jpeg()], token: ana.token)
            #expect(created.status == .created)
            let review = try #require((try json(created)["id"] as? NSNumber)?.int64Value)
            let photos = try #require(try json(created)["photos"] as? [[String: Any]])
            let photo = try #require((photos.first?["id"] as? NSNumber)?.int64Value)
            #expect(try await client.send(.get, "/v1/reviews/\(review)").status == .ok)
            #expect(try await client.send(.get, "/v1/photos/\(photo).jpg").status == .ok)
            #expect(try await client.send(.get, "/v1/places/\(place)").status == .ok)
            for uri in [
                "/v1/reviews/+\(review)", "/v1/reviews/0\(review)", "/v1/reviews/%2B\(review)",
                "/v1/photos/0\(photo).jpg", "/v1/photos/+\(photo).jpg", "/v1/photos/0\(photo)/thumbnail.jpg",
                "/v1/places/00\(place)", "/v1/places/-\(place)",
            ] {
                let response = try await client.send(.get, uri)
                #expect(response.status == .notFound, "\(uri)")
            }
        }
        #expect(Parameters.canonicalID("1") == 1 && Parameters.canonicalID("9223372036854775807") == .max)
        for text in ["", "0", "01", "+1", "-1", " 1", "1 ", "9223372036854775808", "１"] {
            #expect(Parameters.canonicalID(text) == nil, "\(text)")
        }
    }

    @Test(
        "token answers and the account's own are never stored; every answer says nosniff",
        arguments: StoreEngine.available)
    func headers(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let nosniff = HTTPField.Name("X-Content-Type-Options")!
            let registered = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "bo@example.com", "password": "correct horse battery", "nickname": "bo"])
            #expect(registered.status == .created)
            #expect(registered.headers[.cacheControl] == "no-store")
            let login = try await client.login(email: "bo@example.com", password: "correct horse battery")
            #expect(login.headers[.cacheControl] == "no-store")
            let (access, refresh) = try tokens(try json(login))
            let refreshed = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": refresh])
            #expect(refreshed.status == .ok)
            #expect(refreshed.headers[.cacheControl] == "no-store")
            let me = try await client.send(.get, "/v1/users/me", token: access)
            #expect(me.status == .ok)
            #expect(me.headers[.cacheControl] == "no-store")
            let failed = try await client.login(email: "bo@example.com", password: "wrong password!")
            #expect(failed.status == .unauthorized)
            #expect(failed.headers[.cacheControl] == "no-store")
            for response in [registered, me, failed, try await client.send(.get, "/v1/places/nearby?lat=1&lng=1")] {
                #expect(response.headers[nosniff] == "nosniff")
            }
            let missing = try await client.send(.get, "/no/such/route")
            #expect(missing.status == .notFound)
            #expect(missing.headers[nosniff] == "nosniff")
            #expect(missing.headers[.cacheControl] != "no-store")
        }
    }

    @Test("/metrics on the API port answers clients on this machine and those of --metrics-client only")
    func metricsClients() throws {
        let extra = [try #require(IPNetwork("10.1.0.0/16"))]
        for (address, allowed) in [
            ("127.0.0.1", true), ("127.8.9.10", true), ("::1", true), ("10.1.2.3", true), ("10.2.0.1", false),
            ("192.0.2.7", false), ("2001:db8::1", false),
        ] {
            let client = try #require(IPAddress(address))
            #expect(ServiceController.mayReadMetrics(client, extra: extra) == allowed, "\(address)")
        }
        #expect(!ServiceController.mayReadMetrics(try #require(IPAddress("10.1.2.3")), extra: []))
    }

    @Test("/metrics over a real socket from loopback answers 200; a forwarded outside client is refused 403")
    func metricsOverSocket() async throws {
        let environment = try TestEnvironment()
        environment.configuration.trustedProxies = TrustedProxies([try #require(IPNetwork("127.0.0.1"))])
        try await environment.withLiveClient { _, client in
            let local = try await client.execute(uri: "/metrics", method: .get)
            #expect(local.status == .ok)
            let forwarded = try await client.execute(
                uri: "/metrics", method: .get, headers: [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9"])
            #expect(forwarded.status == .forbidden)
            #expect(try problemCode(forwarded) == "forbidden")
        }
    }
}

@Suite("The viewport's next page")
struct ViewportLinkTests {
    @Test("a viewport page with more to come links the next one, as nearby does", arguments: StoreEngine.available)
    func link(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(
            (0..<3).map { PlaceDraft(name: "V\($0)", lat: 10, lng: 10 + Double($0) / 100) })
        try await environment.withClient { client in
            var uri = "/v1/places?bbox=9,9,11,11&limit=1"
            var seen: [Int64] = []
            for _ in 0..<5 {
                let response = try await client.send(.get, uri)
                #expect(response.status == .ok)
                let body = try json(response)
                let items = try #require(body["items"] as? [[String: Any]])
                seen += items.compactMap { ($0["id"] as? NSNumber)?.int64Value }
                guard let link = response.headers[HTTPField.Name("Link")!] else {
                    #expect(body["next_cursor"] is NSNull)
                    break
                }
                let cursor = try #require(body["next_cursor"] as? String)
                #expect(link.hasSuffix(#">; rel="next""#) && link.contains(cursor))
                let target = try #require(link.split(separator: ">").first).dropFirst()
                #expect(target.hasPrefix("/v1/places?bbox=9,9,11,11&limit=1&cursor="))
                uri = String(target)
            }
            #expect(Set(seen) == Set(places.map(\.id)) && seen.count == 3)
        }
    }
}

/// Links and the request's host: one Host (RFC 9112 §3.2), the absolute-form target's authority
/// over Host, and answers built from a Host varying by it unless `--public-url` names the origin.
@Suite("Hosts")
struct HostTests {
    /// Writes `lines` as one request with `Connection: close` and reads the whole answer.
    static func raw(_ port: Int, _ lines: [String]) async throws -> String {
        try await RawSocket.onThread {
            let socket = try RawSocket(port: port)
            _ = socket.write(Array((lines + ["Connection: close", "", ""]).joined(separator: "\r\n").utf8))
            return socket.readToEnd().text
        }
    }

    @Test("two Host fields are 400; an absolute-form target's authority wins; TileJSON varies by Host")
    func hosts() async throws {
        let environment = try TestEnvironment()
        try await environment.withLiveClient { port, _ in
            let twice = try await Self.raw(
                port, ["GET /v1/places/nearby?lat=1&lng=1 HTTP/1.1", "Host: a.example", "Host: b.example"])
            #expect(twice.hasPrefix("HTTP/1.1 400"), "\(twice.prefix(200))")
            #expect(twice.contains("application/problem+json"))
            let absolute = try await Self.raw(
                port, ["GET http://good.example:8080/tiles.json HTTP/1.1", "Host: evil.example"])
            #expect(absolute.hasPrefix("HTTP/1.1 200"), "\(absolute.prefix(200))")
            #expect(absolute.contains("http://good.example:8080/tiles/") && !absolute.contains("evil.example"))
            let plain = try await Self.raw(port, ["GET /tiles.json HTTP/1.1", "Host: maps.example"])
            #expect(plain.contains("http://maps.example/tiles/"))
            #expect(plain.lowercased().contains("vary: host"))
        }
    }

    @Test("with --public-url every link names it, whatever the Host, and nothing varies by Host")
    func publicURL() async throws {
        let environment = try TestEnvironment()
        environment.configuration.publicURL = URL(string: "https://burgers.example")
        try await environment.withLiveClient { port, _ in
            let tiles = try await Self.raw(port, ["GET /tiles.json HTTP/1.1", "Host: evil.example"])
            #expect(tiles.contains("https://burgers.example/tiles/") && !tiles.contains("evil.example"))
            #expect(!tiles.lowercased().contains("vary: host"))
            let ogc = try await Self.raw(port, ["GET /ogc/collections HTTP/1.1", "Host: evil.example"])
            #expect(ogc.contains("https://burgers.example/ogc/") && !ogc.contains("evil.example"))
        }
    }
}

@Suite("Tokens in one spelling")
struct CanonicalTokenTests {
    @Test(
        "a token with a trailing = or changed unused bits is refused; the token as issued works",
        arguments: StoreEngine.available)
    func spellings(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let token = try await client.member("ana").token
            #expect(try await client.send(.get, "/v1/users/me", token: token).status == .ok)
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            var characters = Array(token)
            let last = try #require(alphabet.firstIndex(of: characters[characters.count - 1]))
            // A 32-byte signature is 43 characters: the last one's two low bits are unused.
            characters[characters.count - 1] = alphabet[last ^ 1]
            for spelling in [token + "=", String(characters)] {
                let response = try await client.send(.get, "/v1/users/me", token: spelling)
                #expect(response.status == .unauthorized, "\(spelling.suffix(4))")
            }
            #expect(AccessTokens.isCanonical(token))
            #expect(!AccessTokens.isCanonical(token + "="))
        }
    }
}
