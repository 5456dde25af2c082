import BurgerMapCore
import Foundation
import Hummingbird

/// The place routes under `/v1/places`.
struct PlacesController {
    let store: any PlaceStore
    /// Nearby, viewport, clusters and search: lag-tolerant reads (a replica's, or the primary's).
    let reads: ReadRouting
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware
    /// The cores that searches of two characters may occupy at once.
    let searchScans: CoreBudget
    /// The viewports and filtered nearby searches that may run at once (`ReadGate`).
    var expensiveReads = ReadGate()
    /// The time zone of places added without one (`--default-timezone`).
    var defaultTimeZone: String? = nil

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("nearby", use: nearby)
        routes.get("search", use: search)
        routes.get("clusters", use: clusters)
        routes.get(use: viewport)
        routes.get(":id", use: show)
        routes.signedIn(authentication)
            .post(use: create)
            .patch(":id", use: update)
            .delete(":id", use: delete)
        return routes
    }

    /// The fields of a new place (`POST /v1/places`, and the LookForRealBurger app's restaurant posts).
    struct CreateBody: Decodable {
        var name: String?
        var lat: Double?
        var lng: Double?
        var address: String?
        var phone: String?
        var category: String?
        var website: String?
        var source: String?
        var externalId: String?
        var openingHours: String?
        var timezone: String?

        /// The place these fields describe, checked by the contract's rules (text trimmed,
        /// empty optional texts left out); throws `validation_failed` otherwise. `bytes` is the
        /// body, for `names` (`PlaceDetailsBody`); `defaultTimeZone` is the zone of a place that
        /// names none.
        func draft(bytes: Data? = nil, defaultTimeZone: String? = nil) throws -> PlaceDraft {
            func cleaned(_ text: String?) -> String? {
                text.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            var names: [String: String?] = [:]
            var validator = BodyValidator()
            let name = validator.required(name, "name")
            let lat = validator.required(lat, "lat")
            let lng = validator.required(lng, "lng")
            validator.check { errors in
                if let name { TextField.placeName.check(name, into: &errors) }
                PlacesController.checkPosition(lat: lat, lng: lng, into: &errors)
                let optional: [(TextField, String?)] = [
                    (.placeAddress, address), (.placePhone, phone), (.placeCategory, category),
                    (.placeWebsite, website), (.placeSource, source), (.placeExternalID, externalId),
                ]
                for (field, value) in optional {
                    if let value { field.check(value, into: &errors) }
                }
                if let bytes { names = PlaceDetailsBody.names(in: bytes, allowingRemoval: false, into: &errors) }
                PlacesController.checkHours(cleaned(openingHours), timeZone: cleaned(timezone), into: &errors)
            }
            try validator.validate()
            guard let name, let lat, let lng else { throw Problem.validation([]) }
            let draft = PlaceDraft(
                name: name.trimmingCharacters(in: .whitespacesAndNewlines), lat: lat, lng: lng,
                address: cleaned(address), phone: cleaned(phone), category: cleaned(category),
                website: cleaned(website), source: cleaned(source), externalId: cleaned(externalId),
                names: names.compactMapValues { $0 }.filter { !$0.value.isEmpty },
                openingHours: cleaned(openingHours), timeZone: cleaned(timezone) ?? defaultTimeZone)
            if draft.name.isEmpty {
                throw Problem.validation([TextField.placeName.problem("")!])
            }
            return draft
        }
    }

    /// `POST /v1/places`: adds a place for the signed-in user (`201`), or answers the stored one
    /// (`200`) when `source` and `external_id` name a place that exists.
    @Sendable func create(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let (body, bytes) = try await request.decodeJSONWithBytes(as: CreateBody.self)
        let draft = try body.draft(bytes: bytes, defaultTimeZone: defaultTimeZone)
        let (place, created) = try await store.createPlace(draft, by: context.user.id)
        return place.wholeResponse(
            status: created ? .created : .ok, headers: created ? [.location: "/v1/places/\(place.id)"] : [:])
    }

    /// `GET /v1/places/nearby`: places within a radius, nearest first, keyset-paged.
    @Sendable func nearby(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        var query = NearbyQuery(
            lat: reader.double("lat", in: -90...90),
            lng: reader.double("lng", in: -180...180),
            radiusM: reader.double("radius_m", in: 1...50_000, default: 1000),
            limit: reader.int("limit", in: 1...100, default: 20),
            reviewedOnly: reader.bool("reviewed_only"),
            minRating: reader.optionalDouble("min_rating", in: 1...5),
            category: reader.filter("category"))
        // Open at the request's time (the service's clock, as `open_now` in the answer).
        let openNow = reader.bool("open_now")
        if openNow { query.openAt = PlaceReading.current?.now ?? Date() }
        let format = PlaceListFormat.read(&reader, request)
        try reader.validate()
        // The cursor belongs to this exact search: same point, radius and filters.
        let scope =
            "nearby|\(query.lat)|\(query.lng)|\(query.radiusM)|\(query.reviewedOnly)|\(query.minRating ?? 0)|\(query.category ?? "")"
            + (openNow ? "|open" : "")
        if let cursor = reader.text("cursor") {
            query.after = try cursors.decode(NearbyKey.self, from: cursor, scope: scope)
        }
        // With a filter, the walk examines up to `ReadBounds.filteredNearbyCandidates` places
        // and may answer fewer than `limit` with a cursor that resumes; such searches take a
        // slot of `expensiveReads`.
        let page =
            query.hasFilters
            ? try await expensiveReads.run { [query] in
                try await reads.run(request, context) { try await $0.nearbyPlaces(query) }
            }
            : try await reads.run(request, context) { [query] in try await $0.nearbyPlaces(query) }
        let next = page.nextKey.map { cursors.encode($0, scope: scope) }
        return Page(items: page.items, nextCursor: next).response(for: request, format: format)
    }

    /// `GET /v1/places?bbox=west,south,east,north&limit=&cursor=`: the places of a map
    /// viewport, most-reviewed first (then by id). When more places follow, `truncated` is true
    /// and `next_cursor` continues the same order. The work of one answer is bounded
    /// (`ReadBounds`): a dense box is walked for a bounded number of places, so a page may hold
    /// fewer than `limit` with a `next_cursor`; viewports take a slot of `expensiveReads`.
    @Sendable func viewport(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        let limit = reader.int("limit", in: 1...2000, default: 500)
        let box = try Self.boundingBox(reader.text("bbox"))
        let format = PlaceListFormat.read(&reader, request)
        try reader.validate()
        var query = ViewportQuery(west: box[0], south: box[1], east: box[2], north: box[3], limit: limit)
        // The cursor belongs to this exact box.
        let scope = "viewport|\(query.west)|\(query.south)|\(query.east)|\(query.north)"
        if let cursor = reader.text("cursor") {
            query.after = try cursors.decode(ViewportKey.self, from: cursor, scope: scope)
        }
        let result = try await expensiveReads.run { [query] in
            try await reads.run(request, context) { try await $0.placesInViewport(query) }
        }
        let next = result.nextKey.map { cursors.encode($0, scope: scope) }
        var headers: HTTPFields = [.vary: "Accept"]
        // The next page's link, as every paged list gives it (RFC 8288).
        if let next {
            headers[.link] = Page<Place>.nextLink(path: request.uri.path, query: request.uri.query, cursor: next)
        }
        func writeEnd(_ writer: inout JSONWriter) {
            writer.key("truncated")
            writer.value(result.truncated)
            writer.key("next_cursor")
            writer.value(next)
        }
        if format == .geoJSON {
            var writer = JSONWriter(capacity: 256 + result.items.count * 520)
            writer.featureCollection(result.items) { writer in writeEnd(&writer) }
            return writer.geoJSONResponse(headers: headers)
        }
        var writer = JSONWriter(capacity: 256 + result.items.count * 400)
        writer.object { writer in
            writer.key("items")
            writer.array { writer in
                for place in result.items { place.write(to: &writer) }
            }
            writeEnd(&writer)
        }
        return writer.response(headers: headers)
    }

    /// `lat` −90…90 and `lng` −180…180, for adding and for changing a place.
    static func checkPosition(lat: Double?, lng: Double?, into errors: inout [FieldError]) {
        if let lat, !(-90...90).contains(lat) {
            errors.append(
                FieldError(field: "lat", code: "out_of_range", .fieldOutOfRange, ["min": "-90", "max": "90"]))
        }
        if let lng, !(-180...180).contains(lng) {
            errors.append(
                FieldError(field: "lng", code: "out_of_range", .fieldOutOfRange, ["min": "-180", "max": "180"]))
        }
    }

    /// Parses `west,south,east,north`; `west > east` crosses the antimeridian.
    static func boundingBox(_ text: String?) throws -> [Double] {
        func invalid(_ code: String, _ key: MessageKey) -> Problem {
            .invalid("bbox", code, key)
        }
        guard let text, !text.isEmpty else {
            throw invalid("required", .bboxRequired)
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double(decimal: $0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, numbers.count == 4 else {
            throw invalid("malformed", .bboxMalformed)
        }
        let (west, south, east, north) = (numbers[0], numbers[1], numbers[2], numbers[3])
        guard (-180...180).contains(west), (-180...180).contains(east) else {
            throw invalid("out_of_range", .bboxLongitudes)
        }
        guard (-90...90).contains(south), (-90...90).contains(north) else {
            throw invalid("out_of_range", .bboxLatitudes)
        }
        guard south <= north else {
            throw invalid("out_of_range", .bboxSouthAboveNorth)
        }
        return numbers
    }

    /// `GET /v1/places/{id}`.
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.resourceID(.placeNotFound)
        guard let place = try await store.place(id: id) else { throw Problem.notFound(.placeNotFound, id: id) }
        return place.wholeResponse()
    }
}

extension Parameters {
    /// The `:id` path parameter as a positive id; anything else names no resource (`404`).
    func resourceID(_ missing: MessageKey, named name: String = "id") throws -> Int64 {
        let text = get(name) ?? ""
        guard let id = Self.canonicalID(text) else {
            throw Problem.notFound(missing, id: text)
        }
        return id
    }

    /// An id written as the service writes it: decimal digits, no sign, no leading zero, a
    /// positive Int64. Any other spelling (`+1`, `01`) names no resource, so that caches never
    /// hold two copies of one answer under two URLs.
    static func canonicalID(_ text: String) -> Int64? {
        guard let first = text.utf8.first, first != UInt8(ascii: "0"),
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let id = Int64(text), id > 0
        else { return nil }
        return id
    }
}
