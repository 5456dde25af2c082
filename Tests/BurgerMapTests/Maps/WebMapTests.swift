import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// The web map's page and files as the browser fetches them (scripts/web-map-check drives the
/// page itself in Chromium).
@Suite("Web map")
struct WebMapTests {
    @Test("the page carries its tile settings escaped and a strict policy", arguments: StoreEngine.available)
    func page(engine: StoreEngine) async throws {
        var environment = try await TestEnvironment(engine)
        environment.configuration.webMap.tileURL = "https://{s}.tiles.example.org/{z}/{x}/{y}.png?k=\"><script>"
        environment.configuration.webMap.tileAttribution = "© Example <a href=\"https://example.org\">maps</a>"
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let policy = try #require(response.headers[HTTPField.Name("Content-Security-Policy")!])
            #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self';"))
            #expect(policy.contains("img-src 'self' data: https://*.tiles.example.org;"))
            #expect(!policy.contains("unsafe-inline"))
            // Tile servers get the page's origin as the Referer (OpenStreetMap's refuse requests
            // without one), never its path.
            #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "strict-origin-when-cross-origin")
            let html = String(buffer: response.body)
            #expect(
                html.contains(
                    "data-tile-url=\"https://{s}.tiles.example.org/{z}/{x}/{y}.png?k=&quot;&gt;&lt;script&gt;\""))
            #expect(
                html.contains(
                    "data-tile-attribution=\"© Example &lt;a href=&quot;https://example.org&quot;&gt;maps&lt;/a&gt;\""))
            #expect(!html.contains("<script>\""))
            #expect(html.contains("<script src=\"/map/leaflet.js\"></script>"))
            for (path, type) in [
                ("/map/app.js", "text/javascript; charset=utf-8"), ("/map/app.css", "text/css; charset=utf-8"),
            ] {
                let file = try await client.execute(uri: path, method: .get)
                #expect(file.status == .ok && file.headers[.contentType] == type, "\(path)")
                #expect(file.body.readableBytes > 1000, "\(path)")
            }
            for path in ["/map/nothing.js", "/map/images/../../etc/passwd", "/map/images/nothing.png"] {
                let missing = try await client.execute(uri: path, method: .get)
                #expect(missing.status == .notFound, "\(path)")
            }
        }
    }

    @Test("Leaflet comes from the system's package folder, and only its files", arguments: StoreEngine.available)
    func leaflet(engine: StoreEngine) async throws {
        var environment = try await TestEnvironment(engine)
        let folder = environment.folder.appendingPathComponent("leaflet", isDirectory: true)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("images"), withIntermediateDirectories: true)
        try Data("/* leaflet */".utf8).write(to: folder.appendingPathComponent("leaflet.js"))
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: folder.appendingPathComponent("images/layers.png"))
        try Data("secret".utf8).write(to: folder.appendingPathComponent("other.txt"))
        environment.configuration.webMap.leafletDirectory = folder
        environment.configuration.webMap.tileURL = ""
        try await environment.withClient { client in
            let script = try await client.execute(uri: "/map/leaflet.js", method: .get)
            #expect(script.status == .ok && String(buffer: script.body) == "/* leaflet */")
            let image = try await client.execute(uri: "/map/images/layers.png", method: .get)
            #expect(image.status == .ok && image.headers[.contentType] == "image/png")
            #expect(try await client.execute(uri: "/map/other.txt", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/map/leaflet.css", method: .get).status == .notFound)
            let page = try await client.execute(uri: "/", method: .get)
            let policy = page.headers[HTTPField.Name("Content-Security-Policy")!] ?? ""
            #expect(policy.contains("img-src 'self' data:;"))
        }
    }
}
