import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird

/// How the web map at `/` draws its background and where Leaflet comes from.
public struct WebMapSettings: Sendable {
    /// A Leaflet tile URL template (`{s}`, `{z}`, `{x}`, `{y}`); empty draws no tiles (the pins
    /// and clusters still show), as the browser tests run without network.
    public var tileURL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    /// The tiles' attribution, as HTML Leaflet shows in the corner.
    public var tileAttribution =
        "&copy; <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap</a> contributors"
    /// Debian's `libjs-leaflet` folder, whose script, style sheet and images the service serves under `/map/`.
    public var leafletDirectory = URL(fileURLWithPath: "/usr/share/javascript/leaflet", isDirectory: true)

    public init() {}

    /// The origin the tiles come from, for the page's `img-src`: the template's scheme, host
    /// (a `{s}` subdomain as `*`) and port. Read by hand: the template's braces are not a URL.
    var tileOrigin: String? {
        guard let schemeEnd = tileURL.range(of: "://") else { return nil }
        let scheme = tileURL[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        let rest = tileURL[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.replacingOccurrences(of: "{s}", with: "*")
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*:[]")
        guard !host.isEmpty, host.unicodeScalars.allSatisfy(allowed.contains) else { return nil }
        return "\(scheme)://\(host)"
    }
}

/// The web map: the page at `/`, its script and style, and Leaflet from the system's package.
///
/// The page is static and read-only: it calls the public API (clusters, places, reviews,
/// search, nearby) from the browser. Its `Content-Security-Policy` allows scripts, styles and
/// requests from this origin only, and images from here and the tile server.
struct WebMapController {
    let settings: WebMapSettings
    /// Where the attributions of the places' sources come from.
    let places: any PlaceStore

    /// Leaflet's files that the page uses (nothing else of the package is served), by the path
    /// under `/map/` where the page and Leaflet's style sheet look for them.
    static let leafletFiles: [String: String] = [
        "leaflet.js": "text/javascript; charset=utf-8", "leaflet.css": "text/css; charset=utf-8",
        "images/layers.png": "image/png", "images/layers-2x.png": "image/png", "images/marker-icon.png": "image/png",
        "images/marker-icon-2x.png": "image/png", "images/marker-shadow.png": "image/png",
    ]

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let page = String(buffer: Self.page(settings))
        let policy = contentSecurityPolicy
        let places = places
        routes.get("/") { _, _ in
            // The sources' attributions as they are now (an import may add one at any time).
            let attributions = try await places.sourceAttributions().joined(separator: "\n")
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8", .cacheControl: "no-cache",
                    HTTPField.Name("Content-Security-Policy")!: policy,
                    HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                    // Tile requests carry the page's origin (never its path): OpenStreetMap's tile
                    // servers refuse requests without a Referer, and Debian's Leaflet 1.7.1 has no
                    // per-layer `referrerPolicy` (it came in 1.8), so the page's own policy says it.
                    // `same-origin` sent none to them.
                    HTTPField.Name("Referrer-Policy")!: "strict-origin-when-cross-origin",
                ],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: page.replacingOccurrences(of: "{{data_attribution}}", with: Self.escaped(attributions)))
                ))
        }
        // Everything the page loads, read once: the page's own script and style from the
        // library's resources, Leaflet's files from the system's package.
        var files: [String: (bytes: ByteBuffer, type: String)] = [
            "app.js": (Self.resource("app.js"), "text/javascript; charset=utf-8"),
            "app.css": (Self.resource("app.css"), "text/css; charset=utf-8"),
        ]
        for (name, type) in Self.leafletFiles {
            if let data = try? Data(contentsOf: settings.leafletDirectory.appendingPathComponent(name)) {
                files[name] = (ByteBuffer(bytes: data), type)
            }
        }
        let assets = files
        routes.get("map/:file") { _, context in
            try Self.asset(assets[context.parameters.get("file") ?? ""])
        }
        routes.get("map/images/:file") { _, context in
            try Self.asset(assets["images/" + (context.parameters.get("file") ?? "")])
        }
        return routes
    }

    static func asset(_ file: (bytes: ByteBuffer, type: String)?) throws -> Response {
        guard let file else { throw HTTPError(.notFound) }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.type, .cacheControl: "public, max-age=300",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: file.bytes))
    }

    var contentSecurityPolicy: String {
        let images = ["'self'", "data:"] + (settings.tileURL.isEmpty ? [] : [settings.tileOrigin].compactMap { $0 })
        return "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(images.joined(separator: " ")); "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    static func resource(_ name: String) -> ByteBuffer {
        let parts = name.split(separator: ".")
        guard
            let url = Bundle.module.url(
                forResource: String(parts[0]), withExtension: String(parts[1]), subdirectory: "web"),
            let data = try? Data(contentsOf: url)
        else { return ByteBuffer() }
        return ByteBuffer(bytes: data)
    }

    /// The page with the tile settings in its `data-` attributes, escaped for an attribute.
    static func page(_ settings: WebMapSettings) -> ByteBuffer {
        var html = String(buffer: resource("index.html"))
        html = html.replacingOccurrences(of: "{{tile_url}}", with: escaped(settings.tileURL))
        html = html.replacingOccurrences(of: "{{tile_attribution}}", with: escaped(settings.tileAttribution))
        return ByteBuffer(string: html)
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "\"": result += "&quot;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
