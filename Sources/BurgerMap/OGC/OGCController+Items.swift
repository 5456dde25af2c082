import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird

/// The position a page of features continues after: the last id, and the walk's
/// `numberMatched` as its first page counted it (`nil`: more than the bound). A walk counts once,
/// on its first page, and each cursor carries the count to the next page: a count may read up
/// to the bound's rows, far more than a page.
struct FeatureCursor: CursorPosition, Sendable {
    var after: Int64
    var matched: Int?

    var cursorText: String { "\(after)|\(matched.map(String.init) ?? "-")" }

    init(after: Int64, matched: Int?) {
        self.after = after
        self.matched = matched
    }

    init?(cursorText: String) {
        let parts = cursorText.split(separator: "|")
        guard parts.count == 2, let after = Int64(parts[0]), after > 0 else { return nil }
        if parts[1] == "-" {
            self.init(after: after, matched: nil)
        } else {
            guard let matched = Int(parts[1]), matched >= 0 else { return nil }
            self.init(after: after, matched: matched)
        }
    }
}

extension OGCController {
    /// The page size when a request names none.
    static let defaultLimit = 100

    /// `GET /ogc/collections/{collectionId}/items`: one page of features in id order, with
    /// `numberMatched` (when at most `matchBound`), `numberReturned`, `timeStamp` and links (self,
    /// the collection, and `next` with a signed cursor when more follow, also in `Link`).
    /// `bbox` (CRS84, `west > east` crosses the antimeridian), `datetime` (on `created_at`),
    /// `limit` (1–10,000) and the collection's queryables as equality filters; any other
    /// parameter is `400`.
    @Sendable func items(_ request: Request, context: AppRequestContext) async throws -> Response {
        let collection = try OGCCollection.named(context.parameters.get("collectionId"))
        var reader = QueryReader(request)
        reader.rejectUnknown(collection.itemParameters)
        let limit = reader.int("limit", in: 1...FeatureBounds.pageLimit, default: Self.defaultLimit)
        let format = Self.readFormat(&reader) ?? .geojson
        if let crs = reader.text("bbox-crs"), crs != OGCTerms.crs84 {
            reader.fail("bbox-crs", "unsupported_crs", .bboxCRSUnsupported, ["expected": OGCTerms.crs84])
        }
        var created: TimeRange?
        if let text = reader.text("datetime") {
            created = OGCDateTime.interval(text)
            if created == nil { reader.fail("datetime", "malformed", .datetimeMalformed) }
        }
        var placeFilters: (category: String?, source: String?) = (nil, nil)
        var reviewFilters: (placeID: Int64?, rating: Int?) = (nil, nil)
        switch collection {
        case .places:
            placeFilters = (reader.filter("category"), reader.filter("source"))
        case .reviews:
            if reader.text("place_id") != nil { reviewFilters.placeID = Int64(reader.int("place_id", in: 1...Int.max)) }
            if reader.text("rating") != nil { reviewFilters.rating = reader.int("rating", in: 1...5) }
        }
        try reader.validate()
        let box = try reader.text("bbox").map(Self.box)
        // The cursor belongs to this collection, box and filters (a changed `limit` keeps it).
        func text(_ value: (some CustomStringConvertible)?) -> String { value.map(\.description) ?? "" }
        let boxText = box.map { "\($0.west),\($0.south),\($0.east),\($0.north)" }
        let parts: [String] = [
            "ogc", collection.rawValue, text(boxText), text(placeFilters.category), text(placeFilters.source),
            text(reviewFilters.placeID), text(reviewFilters.rating), text(created?.start), text(created?.end),
        ]
        let scope = parts.joined(separator: "|")
        let cursor = try reader.text("cursor").map { try cursors.decode(FeatureCursor.self, from: $0, scope: scope) }
        let paging = FeaturePaging(
            limit: limit, after: cursor?.after, countsMatches: cursor == nil, matchBound: matchBound)
        // The count of the walk's first page, carried by the cursor.
        func matched(_ counted: Int?) -> Int? { cursor.map(\.matched) ?? counted }
        let base = base(request, context)
        var links = FeatureLinks(
            base: base, path: request.uri.path, query: request.uri.query, cursor: reader.text("cursor"),
            collection: collection)
        var writer: JSONWriter
        switch collection {
        case .places:
            let query = PlaceFeatureQuery(
                box: box, category: placeFilters.category, source: placeFilters.source, created: created,
                paging: paging)
            let page =
                query.isFiltered
                ? try await expensiveReads.run { [features] in try await features.placeFeatures(query) }
                : try await features.placeFeatures(query)
            let numberMatched = matched(page.numberMatched)
            links.next = page.next.map {
                cursors.encode(FeatureCursor(after: $0, matched: numberMatched), scope: scope)
            }
            writer = JSONWriter(capacity: 512 + page.items.count * 560)
            writer.featureCollection(page.items) { writer in
                links.writeMembers(to: &writer, returned: page.items.count, matched: numberMatched)
            }
        case .reviews:
            let query = ReviewFeatureQuery(
                box: box, placeID: reviewFilters.placeID, rating: reviewFilters.rating, created: created,
                paging: paging)
            let page =
                query.isFiltered
                ? try await expensiveReads.run { [features] in try await features.reviewFeatures(query) }
                : try await features.reviewFeatures(query)
            let numberMatched = matched(page.numberMatched)
            links.next = page.next.map {
                cursors.encode(FeatureCursor(after: $0, matched: numberMatched), scope: scope)
            }
            writer = JSONWriter(capacity: 512 + page.items.count * 640)
            OGCFeatureLinks.$base.withValue(base) {
                writer.featureCollection(page.items) { writer in
                    links.writeMembers(to: &writer, returned: page.items.count, matched: numberMatched)
                }
            }
        }
        var headers: HTTPFields = [.vary: "Accept"]
        if let next = links.nextHref {
            headers[.link] = "<\(next)>; rel=\"next\"; type=\"\(PlaceListFormat.geoJSONType)\""
        }
        return format == .json ? writer.response(headers: headers) : writer.geoJSONResponse(headers: headers)
    }

    /// `GET /ogc/collections/{collectionId}/items/{featureId}`: one feature with links to itself
    /// and its collection; a missing one (or a hidden review) is `404`.
    @Sendable func item(_ request: Request, context: AppRequestContext) async throws -> Response {
        let collection = try OGCCollection.named(context.parameters.get("collectionId"))
        var reader = QueryReader(request)
        let format = Self.readFormat(&reader) ?? .geojson
        try reader.validate()
        let id = try context.parameters.resourceID(.featureNotFound, named: "featureId")
        let base = base(request, context)
        let collectionPath = base + "/ogc/collections/\(collection.rawValue)"
        func writeLinks(_ writer: inout JSONWriter) {
            writer.key("links")
            writer.array { writer in
                writer.link(
                    collectionPath + "/items/\(id)", rel: "self", type: PlaceListFormat.geoJSONType,
                    title: "This feature")
                writer.link(collectionPath, rel: "collection", type: OGCTerms.jsonType, title: collection.title)
            }
        }
        var writer = JSONWriter(capacity: 1024)
        switch collection {
        case .places:
            guard let place = try await places.place(id: id) else { throw Problem.notFound(.featureNotFound, id: id) }
            writer.feature(place, members: writeLinks)
        case .reviews:
            guard let review = try await features.reviewFeature(id: id) else {
                throw Problem.notFound(.featureNotFound, id: id)
            }
            OGCFeatureLinks.$base.withValue(base) { writer.feature(review, members: writeLinks) }
        }
        let headers: HTTPFields = [.vary: "Accept"]
        return format == .json ? writer.response(headers: headers) : writer.geoJSONResponse(headers: headers)
    }

    /// A box by the viewport's rules (`PlacesController.boundingBox`); a box of six numbers
    /// (with heights) is refused with a message of its own.
    static func box(_ text: String) throws -> FeatureBox {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        if parts.count == 6, parts.allSatisfy({ Double(decimal: $0.trimmingCharacters(in: .whitespaces)) != nil }) {
            throw Problem.invalid("bbox", "three_dimensions", .bboxThreeDimensions)
        }
        let numbers = try PlacesController.boundingBox(text)
        return FeatureBox(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
    }
}

/// The links and the members after `features` of a page of items.
struct FeatureLinks {
    let base: String
    let path: String
    let query: String?
    /// The cursor the request came with.
    let cursor: String?
    let collection: OGCCollection
    /// The cursor of the next page, when more follow.
    var next: String?

    init(base: String, path: String, query: String?, cursor: String?, collection: OGCCollection) {
        self.base = base
        self.path = path
        self.query = query
        self.cursor = cursor
        self.collection = collection
    }

    /// The request's own parameters with the next page's cursor.
    var nextHref: String? {
        next.map { base + LinkTarget.make(path: path, query: query, cursor: $0) }
    }

    /// `timeStamp`, `numberMatched` (when known), `numberReturned` and `links`.
    func writeMembers(to writer: inout JSONWriter, returned: Int, matched: Int?) {
        writer.key("timeStamp")
        writer.value(Timestamp.now())
        if let matched {
            writer.key("numberMatched")
            writer.value(matched)
        }
        writer.key("numberReturned")
        writer.value(returned)
        writer.key("links")
        writer.array { writer in
            writer.link(
                base + LinkTarget.make(path: path, query: query, cursor: cursor), rel: "self",
                type: PlaceListFormat.geoJSONType, title: "This page")
            if let nextHref {
                writer.link(nextHref, rel: "next", type: PlaceListFormat.geoJSONType, title: "The next page")
            }
            writer.link(
                base + "/ogc/collections/\(collection.rawValue)", rel: "collection", type: OGCTerms.jsonType,
                title: collection.title)
        }
    }
}
