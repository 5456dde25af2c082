import CGeoIndex
import GRDB
import GRDBSQLite

extension AppDatabase: PlaceStore {
    /// The `places` columns that make a `Place`, in the order `place(at:)` reads them.
    static let placeColumns = """
        id, name, lat, lng, address, phone, category, source, external_id, review_count, rating_sum, created_at,
        city, province, postal_code, country, cover_photo_id
        """

    /// The `Place` on the current row of a statement that selects `placeColumns`. Columns are read
    /// straight from SQLite: a nearby page decodes up to 100 places, and GRDB's row decoding cost
    /// more than the search itself.
    static func place(at handle: SQLiteStatement) -> Place {
        // `sqlite3_column_blob` hands out the stored UTF-8 bytes as they are; `sqlite3_column_text`
        // would first copy each one into a buffer of its own to add a NUL terminator.
        func text(_ column: Int32) -> String? {
            guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
            guard let bytes = sqlite3_column_blob(handle, column) else { return "" }
            let buffer = UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column)))
            return String(decoding: buffer, as: UTF8.self)
        }
        let reviewCount = Int(sqlite3_column_int64(handle, 9))
        let ratingSum = Double(sqlite3_column_int64(handle, 10))
        return Place(
            id: sqlite3_column_int64(handle, 0), name: text(1) ?? "", lat: sqlite3_column_double(handle, 2),
            lng: sqlite3_column_double(handle, 3),
            address: displayAddress(
                street: text(4), city: text(12), province: text(13), postalCode: text(14), country: text(15)),
            phone: text(5), category: text(6), source: text(7), externalId: text(8), reviewCount: reviewCount,
            ratingAvg: reviewCount > 0 ? ratingSum / Double(reviewCount) : nil,
            coverPhotoUrl: sqlite3_column_type(handle, 16) == SQLITE_NULL
                ? nil : PhotoURL.full(sqlite3_column_int64(handle, 16)),
            createdAt: Timestamp(milliseconds: sqlite3_column_int64(handle, 11)))
    }

    /// Every place a query that selects `placeColumns` returns, in its order.
    static func fetchPlaces(_ db: Database, sql: String, arguments: StatementArguments) throws -> [Place] {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var places: [Place] = []
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return places }
            guard code == SQLITE_ROW else { throw db.rawError(code, sql: sql) }
            places.append(place(at: handle))
        }
    }

    /// One line for people: "324 Main St, Massena, NY 13662, US", from whichever parts are known.
    /// (Built by appending into one reserved string: it runs for every place of every page.)
    static func displayAddress(street: String?, city: String?, province: String?, postalCode: String?, country: String?)
        -> String?
    {
        guard street != nil || city != nil || province != nil || postalCode != nil || country != nil else { return nil }
        var line = ""
        line.reserveCapacity(
            (street?.utf8.count ?? 0) + (city?.utf8.count ?? 0) + (province?.utf8.count ?? 0)
                + (postalCode?.utf8.count ?? 0) + (country?.utf8.count ?? 0) + 8)
        func append(_ part: String?, after separator: String) {
            guard let part else { return }
            if !line.isEmpty { line += separator }
            line += part
        }
        append(street, after: ", ")
        append(city, after: ", ")
        append(province, after: ", ")
        // The postal code follows the province on the same part: "NY 13662".
        append(postalCode, after: province == nil ? ", " : " ")
        append(country, after: ", ")
        return line
    }

    public func place(id: Int64) async throws -> Place? {
        try await measured("place") {
            try await pool.read { db in try Self.places(db, ids: [id])[id] }
        }
    }

    /// Places by id, in no particular order (missing ids are left out).
    static func places(_ db: Database, ids: some Collection<Int64>) throws -> [Int64: Place] {
        var places: [Int64: Place] = [:]
        places.reserveCapacity(ids.count)
        try forEachPlaceRow(db, ids: ids) { id, handle in places[id] = place(at: handle) }
        return places
    }

    /// Calls `body` with the row of each id that exists, positioned on `placeColumns`.
    private static func forEachPlaceRow(
        _ db: Database, ids: some Collection<Int64>, _ body: (Int64, SQLiteStatement) throws -> Void
    ) throws {
        let statement = try db.cachedStatement(sql: "SELECT \(placeColumns) FROM places WHERE id = ?")
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        for id in ids {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, id)
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { continue }
            guard code == SQLITE_ROW else { throw db.rawError(code) }
            try body(id, handle)
        }
    }

    public func nearbyPlaces(_ query: NearbyQuery) async throws -> NearbyPage {
        try await measured("nearby") { try await pool.read { db in try Self.nearbyPlaces(db, query) } }
    }

    /// The nearby search on one connection (the benchmark calls this directly).
    public static func nearbyPlaces(_ db: Database, _ query: NearbyQuery) throws -> NearbyPage {
        let candidates = try NearestSearch(query: query).candidates(db, count: query.limit + 1)
        // Exact distances from the stored coordinates; only the places that qualify are decoded,
        // and the sort moves small keys, not places.
        var places: [Place] = []
        var keys: [(key: NearbyKey, index: Int)] = []
        places.reserveCapacity(candidates.count)
        keys.reserveCapacity(candidates.count)
        try forEachPlaceRow(db, ids: candidates) { id, handle in
            let distance = bm_haversine_m(
                query.lat, query.lng, sqlite3_column_double(handle, 2), sqlite3_column_double(handle, 3))
            let key = NearbyKey(distanceM: distance, id: id)
            guard distance <= query.radiusM, query.after.map({ $0 < key }) ?? true else { return }
            keys.append((key, places.count))
            places.append(place(at: handle))
        }
        keys.sort { $0.key < $1.key }
        let items = keys.prefix(query.limit).map { NearbyPlace(place: places[$0.index], distanceM: $0.key.distanceM) }
        return NearbyPage(items: items, hasMore: keys.count > query.limit)
    }

    /// How many R*Tree candidates a viewport may have before the search walks the
    /// most-reviewed index instead (a world-wide viewport would otherwise sort every place).
    static let viewportCandidateCap = 50_000

    public func placesInViewport(_ query: ViewportQuery) async throws -> ViewportResult {
        try await measured("viewport") { try await pool.read { db in try Self.placesInViewport(db, query) } }
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
        let places = try fetchPlaces(db, sql: sql, arguments: arguments)
        return ViewportResult(items: Array(places.prefix(query.limit)), truncated: places.count > query.limit)
    }

    /// Stores a new place and returns it.
    public func insertPlace(_ draft: PlaceDraft, at time: Timestamp = .now()) async throws -> Place {
        try await pool.write { db in
            let id = try PlaceWriter(db).insert(draft, at: time)
            return try Self.places(db, ids: [id])[id]!
        }
    }

    public func createPlace(_ draft: PlaceDraft, by userID: Int64) async throws -> (place: Place, created: Bool) {
        try await measured("create_place") {
            try await pool.write { db in
                let writer = PlaceWriter(db)
                // Without a source and an external id the unique index never conflicts: a plain insert.
                guard let newID = try writer.insertIfNew(draft, at: .now()) else {
                    let existing = try writer.id(source: draft.source, externalID: draft.externalId)
                    guard let existing, let place = try Self.places(db, ids: [existing])[existing] else {
                        throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "place vanished during insert")
                    }
                    return (place, false)
                }
                try db.execute(sql: "UPDATE places SET created_by = ? WHERE id = ?", arguments: [userID, newID])
                return (try Self.places(db, ids: [newID])[newID]!, true)
            }
        }
    }
}
