import Hummingbird

/// The place routes under `/v1/places`.
struct PlacesController {
    let store: any PlaceStore
    let cursors: CursorCodec

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("nearby", use: nearby)
        routes.get(use: viewport)
        routes.get(":id", use: show)
        routes.get(":id/reviews", use: reviews)
        return routes
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
            category: reader.text("category").flatMap { $0.isEmpty ? nil : $0 })
        try reader.validate()
        // The cursor belongs to this exact search: same point, radius and filters.
        let scope =
            "nearby|\(query.lat)|\(query.lng)|\(query.radiusM)|\(query.reviewedOnly)|\(query.minRating ?? 0)|\(query.category ?? "")"
        if let cursor = reader.text("cursor") {
            query.after = try cursors.decode(NearbyKey.self, from: cursor, scope: scope)
        }
        let page = try await store.nearbyPlaces(query)
        let next =
            page.hasMore
            ? page.items.last.map { last in
                cursors.encode(NearbyKey(distanceM: last.distanceM, id: last.place.id), scope: scope)
            } : nil
        return Page(items: page.items, nextCursor: next).response(for: request)
    }

    /// `GET /v1/places?bbox=west,south,east,north`: the places of a map viewport.
    @Sendable func viewport(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        let limit = reader.int("limit", in: 1...2000, default: 500)
        let box = try Self.boundingBox(reader.text("bbox"))
        try reader.validate()
        let result = try await store.placesInViewport(
            ViewportQuery(west: box[0], south: box[1], east: box[2], north: box[3], limit: limit))
        var writer = JSONWriter(capacity: 256 + result.items.count * 400)
        writer.object { writer in
            writer.key("items")
            writer.array { writer in
                for place in result.items { place.write(to: &writer) }
            }
            writer.key("truncated")
            writer.value(result.truncated)
        }
        return writer.response()
    }

    /// Parses `west,south,east,north`; `west > east` crosses the antimeridian.
    static func boundingBox(_ text: String?) throws -> [Double] {
        func invalid(_ code: String, _ message: String) -> Problem {
            .validation([FieldError(field: "bbox", code: code, message: message)])
        }
        guard let text, !text.isEmpty else {
            throw invalid("required", "bbox is required as west,south,east,north")
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.filter(\.isFinite)
        guard parts.count == 4, numbers.count == 4 else {
            throw invalid("malformed", "bbox must be four numbers: west,south,east,north")
        }
        let (west, south, east, north) = (numbers[0], numbers[1], numbers[2], numbers[3])
        guard (-180...180).contains(west), (-180...180).contains(east) else {
            throw invalid("out_of_range", "bbox longitudes must be -180 to 180")
        }
        guard (-90...90).contains(south), (-90...90).contains(north) else {
            throw invalid("out_of_range", "bbox latitudes must be -90 to 90")
        }
        guard south <= north else {
            throw invalid("out_of_range", "bbox south must not be greater than north")
        }
        return numbers
    }

    /// `GET /v1/places/{id}`.
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.resourceID(kind: "place")
        guard let place = try await store.place(id: id) else { throw Problem.notFound("place", id: id) }
        var writer = JSONWriter(capacity: 512)
        place.write(to: &writer)
        return writer.response()
    }

    /// `GET /v1/places/{id}/reviews`: newest first. Reviews arrive with a later issue; until then
    /// every existing place answers an empty page.
    @Sendable func reviews(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.resourceID(kind: "place")
        var reader = QueryReader(request)
        _ = reader.int("limit", in: 1...100, default: 20)
        try reader.validate()
        guard try await store.place(id: id) != nil else { throw Problem.notFound("place", id: id) }
        if let cursor = reader.text("cursor") {
            _ = try cursors.decode(Timestamp.self, from: cursor, scope: "place-reviews|\(id)")
        }
        return Page<Place>(items: [], nextCursor: nil).response(for: request)
    }
}

extension Parameters {
    /// The `:id` path parameter as a positive id; anything else names no resource (`404`).
    func resourceID(kind: String, named name: String = "id") throws -> Int64 {
        let text = get(name) ?? ""
        guard let id = Int64(text), id > 0 else {
            throw Problem(.notFound, "No \(kind) has id \(text.prefix(40)).")
        }
        return id
    }
}
