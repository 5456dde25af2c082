import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap

@Suite("OGC API – Features: absolute links")
struct OGCLinkTests {
    /// The `self` link of the landing page for a request with `headers`.
    static func selfLink(_ client: any TestClientProtocol, _ headers: HTTPFields) async throws -> String? {
        let response = try await client.execute(uri: "/ogc", method: .get, headers: headers)
        #expect(response.status == .ok)
        let links = try json(response)["links"] as? [[String: Any]]
        return links?.first { $0["rel"] as? String == "self" }?["href"] as? String
    }

    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwarded = HTTPField.Name("Forwarded")!

    @Test("behind a trusted proxy the links take its forwarded scheme and host", arguments: StoreEngine.available)
    func trustedProxy(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.trustedProxies = TrustedProxies([try #require(IPNetwork("127.0.0.0/8"))])
        try await environment.insert((0..<3).map { PlaceDraft(name: "L\($0)", lat: 1, lng: Double($0)) })
        try await environment.withLiveClient { _, client in
            #expect(try await Self.selfLink(client, [:]) == "http://localhost/ogc")
            #expect(
                try await Self.selfLink(
                    client, [Self.xForwardedProto: "https", Self.xForwardedHost: "maps.example.org"])
                    == "https://maps.example.org/ogc")
            // RFC 7239: the right-most element is the trusted proxy's own.
            #expect(
                try await Self.selfLink(
                    client,
                    [
                        Self.forwarded:
                            "host=evil.example;proto=http, for=192.0.2.1;proto=https;host=\"burgers.example:8443\""
                    ])
                    == "https://burgers.example:8443/ogc")
            // A forwarded host that is not one is ignored; so is a scheme other than http(s).
            #expect(
                try await Self.selfLink(
                    client, [Self.xForwardedHost: "evil.example\"><a", Self.xForwardedProto: "javascript"])
                    == "http://localhost/ogc")
            // The next link of a page carries the forwarded base too.
            let response = try await client.execute(
                uri: "/ogc/collections/places/items?limit=1", method: .get,
                headers: [Self.xForwardedProto: "https", Self.xForwardedHost: "maps.example.org"])
            let links = try #require(try json(response)["links"] as? [[String: Any]])
            let next = try #require(links.first { $0["rel"] as? String == "next" }?["href"] as? String)
            #expect(next.hasPrefix("https://maps.example.org/ogc/collections/places/items?limit=1&cursor="))
            #expect(
                response.headers[HTTPField.Name("Link")!] == "<\(next)>; rel=\"next\"; type=\"application/geo+json\"")
        }
    }

    @Test("from a peer that is not a trusted proxy the forwarded headers are ignored", arguments: StoreEngine.available)
    func untrustedPeer(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.trustedProxies = TrustedProxies([try #require(IPNetwork("192.0.2.0/24"))])
        try await environment.withLiveClient { _, client in
            let link = try await Self.selfLink(
                client,
                [
                    Self.xForwardedProto: "https", Self.xForwardedHost: "maps.example.org",
                    Self.forwarded: "proto=https;host=burgers.example",
                ])
            #expect(link == "http://localhost/ogc")
        }
    }

    @Test("a Host that is not a host[:port] never reaches the links", arguments: StoreEngine.available)
    func hostValidation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let host = HTTPField.Name("Host")!
        try await environment.withClient { client in
            let named = try await Self.selfLink(client, [host: "burgers.example:8080"])
            #expect(named == "http://burgers.example:8080/ogc")
            let literal = try await Self.selfLink(client, [host: "[2001:db8::1]:8080"])
            #expect(literal == "http://[2001:db8::1]:8080/ogc")
            let injected = try await Self.selfLink(client, [host: "evil.example/\"><script>"])
            #expect(injected == "http://localhost/ogc")
        }
        for valid in ["localhost", "127.0.0.1:8080", "a-b.example", "[::1]", "[2001:db8::1]:443"] {
            #expect(RequestOrigin.isAuthority(valid), "\(valid)")
        }
        for invalid in [
            "", "a b", "host:", "host:123456", "[::1", "[]", "user@host", "a/b", "h\"x", "[::1]x", "é.example",
        ] {
            #expect(!RequestOrigin.isAuthority(invalid), "\(invalid)")
        }
    }
}
