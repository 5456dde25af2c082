import GRDB

extension AppDatabase: PlaceStore {
    /// The `places` columns that make a `Place`, in the order `place(from:)` reads them.
    static let placeColumns =
        "id, name, lat, lng, address, phone, category, source, external_id, review_count, rating_sum, created_at"

    /// Builds a `Place` from a row selected with `placeColumns`.
    static func place(from row: Row) -> Place {
        let reviewCount: Int = row[9]
        let ratingSum: Int = row[10]
        return Place(
            id: row[0], name: row[1], lat: row[2], lng: row[3], address: row[4], phone: row[5],
            category: row[6], source: row[7], externalId: row[8], reviewCount: reviewCount,
            ratingAvg: reviewCount > 0 ? Double(ratingSum) / Double(reviewCount) : nil,
            coverPhotoUrl: nil, createdAt: Timestamp(milliseconds: row[11]))
    }

    public func place(id: Int64) async throws -> Place? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.placeColumns) FROM places WHERE id = ?", arguments: [id])
                .map(Self.place(from:))
        }
    }

    /// Places by id, in no particular order.
    static func places(_ db: Database, ids: some Collection<Int64>) throws -> [Int64: Place] {
        guard !ids.isEmpty else { return [:] }
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT \(placeColumns) FROM places WHERE id IN (SELECT value FROM json_each(?))",
            arguments: ["[" + ids.map(String.init).joined(separator: ",") + "]"])
        return Dictionary(uniqueKeysWithValues: rows.map { row in
            let place = place(from: row)
            return (place.id, place)
        })
    }

    public func nearbyPlaces(_ query: NearbyQuery) async throws -> NearbyPage {
        try await pool.read { db in try Self.nearbyPlaces(db, query) }
    }

    /// The nearby search on one connection (the benchmark calls this directly).
    public static func nearbyPlaces(_ db: Database, _ query: NearbyQuery) throws -> NearbyPage {
        let keys = try NearestSearch(query: query).run(db, count: query.limit + 1)
        let page = keys.prefix(query.limit)
        let places = try places(db, ids: page.map(\.id))
        return NearbyPage(
            items: page.compactMap { key in
                places[key.id].map { NearbyPlace(place: $0, distanceM: key.distanceM) }
            },
            hasMore: keys.count > query.limit)
    }

    /// How many R*Tree candidates a viewport may have before the search walks the
    /// most-reviewed index instead (a world-wide viewport would otherwise sort every place).
    static let viewportCandidateCap = 50_000

    public func placesInViewport(_ query: ViewportQuery) async throws -> ViewportResult {
        try await pool.read { db in try Self.placesInViewport(db, query) }
    }

    static func placesInViewport(_ db: Database, _ query: ViewportQuery) throws -> ViewportResult {
        var rtreeParts: [String] = []
        var rtreeArguments: StatementArguments = []
        var exactParts: [String] = []
        var exactArguments: StatementArguments = [query.south, query.north]
        for span in query.longitudeSpans {
            rtreeParts.append(
                "SELECT pkid FROM idx_places_geom WHERE xmax >= ? AND xmin <= ? AND ymax >= ? AND ymin <= ?")
            rtreeArguments += [span.lowerBound, span.upperBound, query.south, query.north]
            exactParts.append("lng BETWEEN ? AND ?")
            exactArguments += [span.lowerBound, span.upperBound]
        }
        let rtree = rtreeParts.joined(separator: " UNION ALL ")
        // The R*Tree holds 32-bit boxes rounded outwards: the exact test is on lat/lng.
        let exact = "lat BETWEEN ? AND ? AND (\(exactParts.joined(separator: " OR ")))"
        let candidates =
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM (\(rtree) LIMIT \(viewportCandidateCap + 1))",
                arguments: rtreeArguments) ?? 0
        let sql =
            candidates <= viewportCandidateCap
            ? """
            SELECT \(placeColumns) FROM places WHERE id IN (\(rtree)) AND \(exact)
            ORDER BY review_count DESC, id LIMIT ?
            """
            : """
            SELECT \(placeColumns) FROM places INDEXED BY places_by_review_count WHERE \(exact)
            ORDER BY review_count DESC, id LIMIT ?
            """
        let arguments =
            candidates <= viewportCandidateCap
            ? rtreeArguments + exactArguments + [query.limit + 1]
            : exactArguments + [query.limit + 1]
        let places = try Row.fetchAll(db, sql: sql, arguments: arguments).map(place(from:))
        return ViewportResult(items: Array(places.prefix(query.limit)), truncated: places.count > query.limit)
    }

    /// Stores a new place and returns it.
    public func insertPlace(_ draft: PlaceDraft, at time: Timestamp = .now()) async throws -> Place {
        try await pool.write { db in
            let id = try PlaceWriter(db).insert(draft, at: time)
            return try Row.fetchOne(
                db, sql: "SELECT \(Self.placeColumns) FROM places WHERE id = ?", arguments: [id]
            ).map(Self.place(from:))!
        }
    }
}
