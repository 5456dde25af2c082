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

    /// A property of the collection's features and its JSON Schema type (`format` for a
    /// date-time; `items` for an array's elements).
    struct Property: Sendable {
        var name: StaticString
        var type: StaticString
        var format: StaticString? = nil
        var items: StaticString? = nil
    }

    /// The properties of a feature, in the order the features write them. A place's `id`
    /// property (the feature's id again) is left out: GDAL 3.6 adds a field for a first property
    /// named `id` from the first page and then every property of the schema, so it would have
    /// two fields of that name.
    var properties: [Property] {
        switch self {
        case .places:
            [
                Property(name: "name", type: "string"),
                Property(name: "lat", type: "number"), Property(name: "lng", type: "number"),
                Property(name: "address", type: "string"), Property(name: "phone", type: "string"),
                Property(name: "category", type: "string"), Property(name: "website", type: "string"),
                Property(name: "source", type: "string"), Property(name: "external_id", type: "string"),
                Property(name: "review_count", type: "integer"), Property(name: "rating_avg", type: "number"),
                Property(name: "cover_photo_url", type: "string"),
                Property(name: "created_at", type: "string", format: "date-time"),
                Property(name: "opening_hours", type: "string"), Property(name: "timezone", type: "string"),
                Property(name: "open_now", type: "boolean"), Property(name: "attributes", type: "object"),
            ]
        case .reviews:
            [
                Property(name: "place_id", type: "integer"), Property(name: "place_name", type: "string"),
                Property(name: "rating", type: "integer"), Property(name: "title", type: "string"),
                Property(name: "excerpt", type: "string"), Property(name: "author_nickname", type: "string"),
                Property(name: "photo_urls", type: "array", items: "string"),
                Property(name: "created_at", type: "string", format: "date-time"),
            ]
        }
    }

    /// Every query parameter the items route of this collection understands; any other is
    /// `400` (OGC API – Features, /req/core/query-param-unknown).
    var itemParameters: Set<String> {
        // `lang` chooses the language of place names, on every route that shows places.
        Set(["bbox", "bbox-crs", "datetime", "limit", "cursor", "f", "lang"] + queryables.map { "\($0.name)" })
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
