import BurgerMapCore

/// The feature collections of the OGC API – Features routes, and what each one offers.
enum OGCCollection: String, CaseIterable, Sendable {
    case places
    case reviews

    /// A property that clients may filter on with an equality query parameter (OGC API –
    /// Features Part 3, queryables as query parameters).
    struct Queryable: Sendable {
        var name: StaticString
        var title: StaticString
        /// The JSON Schema type: `string` or `integer`.
        var type: StaticString
        var range: ClosedRange<Int>?
    }

    var title: String {
        switch self {
        case .places: "Places"
        case .reviews: "Reviews"
        }
    }

    var description: String {
        switch self {
        case .places: "Every place on the map: burger restaurants and the like, imported or added by users."
        case .reviews:
            "Every public review, as a point at its place, with the first 200 characters of its text."
        }
    }

    var queryables: [Queryable] {
        switch self {
        case .places:
            [
                Queryable(name: "category", title: "Category", type: "string"),
                Queryable(name: "source", title: "Import source", type: "string"),
            ]
        case .reviews:
            [
                Queryable(name: "place_id", title: "Place id", type: "integer", range: 1...Int.max),
                Queryable(name: "rating", title: "Rating", type: "integer", range: 1...5),
            ]
        }
    }

    /// Every query parameter the items route of this collection understands; any other is
    /// `400` (OGC API – Features, /req/core/query-param-unknown).
    var itemParameters: Set<String> {
        Set(["bbox", "bbox-crs", "limit", "cursor", "f"] + queryables.map { "\($0.name)" })
    }

    /// The collection named by the route's `collectionId`, or `404 not_found`.
    static func named(_ text: String?) throws -> OGCCollection {
        guard let text, let collection = OGCCollection(rawValue: text) else {
            throw Problem.notFound(.collectionNotFound, id: text ?? "")
        }
        return collection
    }
}

/// The OGC identifiers the documents name.
enum OGCTerms {
    static let crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    static let queryablesRel = "http://www.opengis.net/def/rel/ogc/1.0/queryables"
    static let openAPIType = "application/vnd.oai.openapi+json;version=3.0"
    static let schemaType = "application/schema+json"
    static let jsonType = "application/json"

    /// The conformance classes the routes honour, and no other: Part 1 core, GeoJSON and the
    /// OpenAPI 3.0 description; Part 3 queryables and queryables as query parameters (equality
    /// only). No HTML, no CQL2 `filter`, no other CRS (Part 2).
    static let conformance = [
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
    ]
}

extension JSONWriter {
    /// `{"href": …, "rel": …, "type": …, "title": …}` (no title when `nil`).
    mutating func link(_ href: String, rel: String, type: String, title: String? = nil) {
        object { writer in
            writer.key("href")
            writer.value(href)
            writer.key("rel")
            writer.value(rel)
            writer.key("type")
            writer.value(type)
            if let title {
                writer.key("title")
                writer.value(title)
            }
        }
    }

}
