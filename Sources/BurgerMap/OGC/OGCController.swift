import BurgerMapCore
import Foundation
import Hummingbird

/// The OGC API – Features routes under `/ogc` (Part 1 Core with GeoJSON and an OpenAPI 3.0
/// description; Part 3 queryables, as JSON Schema and as equality query parameters): the
/// places and the public reviews as two feature collections, for GIS clients such as GDAL's
/// OAPIF driver, QGIS and OWSLib. Every route is a GET; every link is absolute
/// (`RequestOrigin`).
struct OGCController {
    let places: any PlaceStore
    let features: any FeatureStore
    let cursors: CursorCodec
    let trustedProxies: TrustedProxies
    /// `--public-url`: the origin of every absolute link, whatever the request's `Host`.
    var publicURL: URL? = nil
    /// Filtered pages walk more rows than a plain one: they take a slot of the gate the
    /// viewports take (`ReadGate`).
    var expensiveReads = ReadGate()
    /// The most matches `numberMatched` counts (`FeatureBounds.numberMatched`; tests set less).
    var matchBound = FeatureBounds.numberMatched

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: landing)
        routes.get("conformance", use: conformance)
        routes.get("api", use: api)
        routes.get("collections", use: collections)
        routes.get("collections/:collectionId", use: collection)
        routes.get("collections/:collectionId/queryables", use: queryables)
        routes.get("collections/:collectionId/schema", use: schema)
        routes.get("collections/:collectionId/items", use: items)
        routes.get("collections/:collectionId/items/:featureId", use: item)
        return routes
    }

    /// The base of the links of a request.
    /// With `--public-url`, that origin; else the request's (OGC answers carry no `Cache-Control`
    /// and so are not stored by shared caches, whatever `Host` they were built from).
    func base(_ request: Request, _ context: AppRequestContext) -> String {
        RequestOrigin.forLinks(
            request, peer: context.remoteAddress.flatMap { IPAddress($0) }, trustedProxies: trustedProxies,
            publicURL: publicURL
        ).text
    }

    /// Reads `f` (`json` or `geojson`) on a route that answers JSON; anything else is `400`.
    static func readFormat(_ reader: inout QueryReader) -> OGCFormat? {
        guard let text = reader.text("f") else { return nil }
        guard let format = OGCFormat(rawValue: text) else {
            reader.fail("f", "unsupported", .fieldWrongType, ["expected": "json, geojson"])
            return nil
        }
        return format
    }

    /// `GET /ogc`: the landing page, with links to the API description, the conformance
    /// classes and the collections.
    @Sendable func landing(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        _ = Self.readFormat(&reader)
        try reader.validate()
        let base = base(request, context)
        var writer = JSONWriter(capacity: 1024)
        writer.object { writer in
            writer.key("title")
            writer.value("BurgerMap")
            writer.key("description")
            writer.value(
                "Places and public reviews of BurgerMap as OGC API – Features collections (GeoJSON, CRS84).")
            writer.key("links")
            writer.array { writer in
                writer.link(base + "/ogc", rel: "self", type: OGCTerms.jsonType, title: "This document")
                writer.link(
                    base + "/ogc/api", rel: "service-desc", type: OGCTerms.openAPIType,
                    title: "The API description (OpenAPI 3.0)")
                writer.link(
                    base + "/ogc/conformance", rel: "conformance", type: OGCTerms.jsonType,
                    title: "The conformance classes the API honours")
                writer.link(base + "/ogc/collections", rel: "data", type: OGCTerms.jsonType, title: "The collections")
            }
        }
        return writer.response()
    }

    /// `GET /ogc/conformance`: the conformance classes the routes honour.
    @Sendable func conformance(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        _ = Self.readFormat(&reader)
        try reader.validate()
        var writer = JSONWriter(capacity: 512)
        writer.object { writer in
            writer.key("conformsTo")
            writer.array { writer in
                for uri in OGCTerms.conformance { writer.value(uri) }
            }
        }
        return writer.response()
    }

    /// `GET /ogc/api`: the OpenAPI 3.0 description of the `/ogc` routes (a resource file; GDAL
    /// reads the items routes' parameters from it to send attribute filters to the server).
    @Sendable func api(_ request: Request, context: AppRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: OGCTerms.openAPIType],
            body: .init(byteBuffer: Self.openAPIDocument))
    }

    /// The OGC routes' OpenAPI 3.0 document shipped with the library.
    static let openAPIDocument: ByteBuffer = {
        guard let url = Bundle.module.url(forResource: "ogc-openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return ByteBuffer(string: "{}") }
        return ByteBuffer(bytes: data)
    }()

    /// `GET /ogc/collections`: both collections.
    @Sendable func collections(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        _ = Self.readFormat(&reader)
        try reader.validate()
        let base = base(request, context)
        var writer = JSONWriter(capacity: 2048)
        writer.object { writer in
            writer.key("links")
            writer.array { writer in
                writer.link(base + "/ogc/collections", rel: "self", type: OGCTerms.jsonType, title: "This document")
            }
            writer.key("collections")
            writer.array { writer in
                for collection in OGCCollection.allCases { collection.write(to: &writer, base: base) }
            }
        }
        return writer.response()
    }

    /// `GET /ogc/collections/{collectionId}`: one collection; an unknown one is `404`.
    @Sendable func collection(_ request: Request, context: AppRequestContext) async throws -> Response {
        let collection = try OGCCollection.named(context.parameters.get("collectionId"))
        var reader = QueryReader(request)
        _ = Self.readFormat(&reader)
        try reader.validate()
        var writer = JSONWriter(capacity: 1024)
        collection.write(to: &writer, base: base(request, context))
        return writer.response()
    }
}

/// The `f` query parameter of the OGC routes.
enum OGCFormat: String, Sendable {
    case json
    case geojson
}

extension OGCCollection {
    /// The collection's description: its extent (the whole world in CRS84), its item type and
    /// links to itself, its items and its queryables.
    func write(to writer: inout JSONWriter, base: String) {
        let path = base + "/ogc/collections/\(rawValue)"
        writer.object { writer in
            writer.key("id")
            writer.value(rawValue)
            writer.key("title")
            writer.value(title)
            writer.key("description")
            writer.value(description)
            writer.key("itemType")
            writer.value("feature")
            writer.key("extent")
            writer.object { writer in
                writer.key("spatial")
                writer.object { writer in
                    writer.key("bbox")
                    writer.array { writer in
                        writer.array { writer in
                            for corner in [-180, -90, 180, 90] { writer.value(corner) }
                        }
                    }
                    writer.key("crs")
                    writer.value(OGCTerms.crs84)
                }
            }
            writer.key("crs")
            writer.array { writer in writer.value(OGCTerms.crs84) }
            writer.key("links")
            writer.array { writer in
                writer.link(path, rel: "self", type: OGCTerms.jsonType, title: title)
                writer.link(path + "/items", rel: "items", type: PlaceListFormat.geoJSONType, title: title)
                writer.link(
                    path + "/queryables", rel: OGCTerms.queryablesRel, type: OGCTerms.schemaType,
                    title: "The properties to filter \(rawValue) on")
                // Relation types compare case-insensitively (RFC 8288); GDAL 3.6 looks for this
                // spelling only.
                writer.link(
                    path + "/schema", rel: "describedBy", type: OGCTerms.schemaType,
                    title: "The schema of the \(rawValue) features")
            }
        }
    }
}
