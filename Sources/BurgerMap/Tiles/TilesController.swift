import BurgerMapCore
import Foundation
import Hummingbird

/// `GET /tiles/{z}/{x}/{y}.mvt` and `GET /tiles.json`: the places as Mapbox Vector Tiles for
/// MapLibre, QGIS and GDAL, clustered exactly as the cluster route clusters them, kept encoded
/// in memory and forgotten exactly when an event changes them.
struct TilesController {
    let store: any PlaceStore
    let tiles: TileServices
    let trustedProxies: TrustedProxies
    /// `--public-url`: the origin of TileJSON's tile template, whatever the request's `Host`.
    var publicURL: URL? = nil

    static let mediaType = "application/vnd.mapbox-vector-tile"

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("tiles/{z}/{x}/{y}.mvt", use: tile)
        routes.get("tiles.json", use: tileJSON)
        return routes
    }

    /// One tile: `200` with its MVT bytes (gzipped for clients that accept it), `204` when it
    /// holds no place, `304` when `If-None-Match` holds its tag; `400` for a zoom outside 0…20
    /// or a column or row outside the zoom's grid.
    @Sendable func tile(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        let reviewedOnly = reader.bool("reviewed_only")
        let address = try Self.address(context.parameters, reader: &reader)
        let key = TileCache.Key(address: address, reviewedOnly: reviewedOnly)
        let tile: CachedTile
        if let kept = tiles.cache.tile(key) {
            tile = kept
        } else {
            let generation = tiles.cache.generation
            let content = try await store.tile(TileQuery(address, reviewedOnly: reviewedOnly))
            tile = try CachedTile(bytes: content.vectorTile)
            tiles.cache.store(tile, for: key, builtAt: generation)
        }
        let gzip = AcceptEncoding.preferredCoding(request.headers[values: .acceptEncoding].prefix(8)) == .gzip
        let etag = gzip ? tile.gzipETag : tile.etag
        var headers: HTTPFields = [
            .eTag: etag, .vary: "Accept-Encoding", .cacheControl: "public, max-age=\(tiles.maxAge), must-revalidate",
            .accessControlAllowOrigin: "*",
        ]
        // The usual header is the one tag the client was given: compared whole first (the
        // list parser's trimming was 3% of a revalidation's CPU in a profile).
        if let ifNoneMatch = request.headers[.ifNoneMatch],
            ifNoneMatch == etag || PhotosController.matches(ifNoneMatch, etag)
        {
            return Response(status: .notModified, headers: headers)
        }
        guard tile.body.readableBytes > 0 else { return Response(status: .noContent, headers: headers) }
        headers[.contentType] = Self.mediaType
        let body = gzip ? tile.gzipped : tile.body
        if gzip { headers[.contentEncoding] = "gzip" }
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// The tile's address from the path, or a `validation_failed` problem naming each bad part.
    static func address(_ parameters: Parameters, reader: inout QueryReader) throws -> TileAddress {
        var parts: [String: Int64] = [:]
        for name in ["z", "x", "y"] {
            guard let text = parameters.get(name), let value = Int64(text) else {
                reader.fail(name, "not_an_integer", .fieldNotInteger)
                continue
            }
            parts[name] = value
        }
        let z = parts["z"] ?? 0
        if !(0...Int64(TileAddress.zooms.upperBound)).contains(z) {
            reader.fail(
                "z", "out_of_range", .fieldOutOfRange, ["min": "0", "max": "\(TileAddress.zooms.upperBound)"])
        } else {
            let last = (Int64(1) << z) - 1
            for name in ["x", "y"] where parts[name].map({ !(0...last).contains($0) }) ?? false {
                reader.fail(name, "out_of_range", .fieldOutOfRange, ["min": "0", "max": "\(last)"])
            }
        }
        try reader.validate()
        return TileAddress(z: Int(z), x: parts["x"]!, y: parts["y"]!)!
    }

    /// A TileJSON 3.0.0 document: the tile URL template (absolute, from the request's origin;
    /// `reviewed_only=true` carries over to it), zooms 0…20, the Web Mercator world's bounds,
    /// the two layers with their fields, and the `attribution` the sources' licences require.
    @Sendable func tileJSON(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        let reviewedOnly = reader.bool("reviewed_only")
        try reader.validate()
        let links = RequestOrigin.forLinks(
            request, peer: context.remoteAddress.flatMap { IPAddress($0) }, trustedProxies: trustedProxies,
            publicURL: publicURL)
        let origin = links.text
        let limit = PlaceCells.mercatorLimit
        // What the places' licences require a map to show (TileJSON's `attribution`, HTML).
        let attributions = try await store.sourceAttributions()
        var writer = JSONWriter(capacity: 1024)
        writer.object { writer in
            writer.key("tilejson")
            writer.value("3.0.0")
            writer.key("name")
            writer.value(reviewedOnly ? "BurgerMap reviewed places" : "BurgerMap places")
            if !attributions.isEmpty {
                writer.key("attribution")
                writer.value(attributions.map(WebMapController.escaped).joined(separator: "; "))
            }
            writer.key("scheme")
            writer.value("xyz")
            writer.key("tiles")
            writer.array { writer in
                writer.value("\(origin)/tiles/{z}/{x}/{y}.mvt" + (reviewedOnly ? "?reviewed_only=true" : ""))
            }
            writer.key("minzoom")
            writer.value(TileAddress.zooms.lowerBound)
            writer.key("maxzoom")
            writer.value(TileAddress.zooms.upperBound)
            writer.key("bounds")
            writer.array { writer in
                for value: Double in [-180, -limit, 180, limit] { writer.value(value as Double?) }
            }
            writer.key("vector_layers")
            writer.array { writer in
                for (id, description, fields) in Self.layers {
                    writer.object { writer in
                        writer.key("id")
                        writer.value(id)
                        writer.key("description")
                        writer.value(description)
                        writer.key("minzoom")
                        writer.value(TileAddress.zooms.lowerBound)
                        writer.key("maxzoom")
                        writer.value(TileAddress.zooms.upperBound)
                        writer.key("fields")
                        writer.object { writer in
                            for (name, type) in fields {
                                writer.key(name)
                                writer.value(type)
                            }
                        }
                    }
                }
            }
        }
        // Cached by anyone for an hour: with links from the request's Host, only for that Host
        // (a hostile Host never reaches another client's copy); with --public-url, for all.
        var headers: HTTPFields = [.accessControlAllowOrigin: "*", .cacheControl: "public, max-age=3600"]
        for name in links.varies { headers.addVary(name) }
        return writer.response(headers: headers)
    }

    /// The layers and their fields, as TileJSON describes them.
    static let layers: [(String, String, [(StaticString, String)])] = [
        (
            "clusters", "Two places or more in a cell of 64 × 64 pixels (of a 256-pixel tile), at their mean position",
            [("count", "Number"), ("expansion_zoom", "Number")]
        ),
        (
            "places", "A place alone in its cell",
            [
                ("id", "Number"), ("name", "String"), ("category", "String"), ("rating_avg", "Number"),
                ("review_count", "Number"),
            ]
        ),
    ]
}
