import BurgerMapCore
import CGeoIndex
import GRDB
import GRDBSQLite

extension AppDatabase: PlaceStore {
    /// The `places` columns that make a `Place`, in the order `place(at:)` reads them.
    static let placeColumns = """
        id, name, lat, lng, address, phone, category, source, external_id, review_count, rating_sum, created_at,
        city, province, postal_code, country, cover_photo_id, website, names, opening_hours, timezone, attributes
        """

    /// The `Place` on the current row of a statement that selects `placeColumns` from column
    /// `first` on. Columns are read straight from SQLite: a nearby page decodes up to 100 places,
    /// and GRDB's row decoding cost more than the search itself.
    static func place(at handle: SQLiteStatement, from first: Int32 = 0) -> Place {
        func text(_ column: Int32) -> String? {
            textBytes(handle, first + column).map { String(decoding: $0, as: UTF8.self) }
        }
        let reviewCount = Int(sqlite3_column_int64(handle, first + 9))
        let ratingSum = Double(sqlite3_column_int64(handle, first + 10))
        return Place(
            id: sqlite3_column_int64(handle, first), name: text(1) ?? "",
            lat: sqlite3_column_double(handle, first + 2), lng: sqlite3_column_double(handle, first + 3),
            address: displayAddress(
                handle, street: first + 4, city: first + 12, province: first + 13, postalCode: first + 14,
                country: first + 15),
            phone: text(5), category: text(6), website: text(17), source: text(7), externalId: text(8),
            reviewCount: reviewCount,
            ratingAvg: reviewCount > 0 ? ratingSum / Double(reviewCount) : nil,
            coverPhotoUrl: sqlite3_column_type(handle, first + 16) == SQLITE_NULL
                ? nil : PhotoURL.full(sqlite3_column_int64(handle, first + 16)),
            createdAt: Timestamp(milliseconds: sqlite3_column_int64(handle, first + 11)),
            storedNames: text(18), openingHours: text(19), timeZone: text(20), attributes: text(21))
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

    /// The stored UTF-8 bytes of a text column, valid until the statement moves on; `nil` for
    /// NULL. (`sqlite3_column_blob` hands them out as they are; `sqlite3_column_text` would first
    /// copy each into a buffer of its own to add a NUL terminator.)
    private static func textBytes(_ handle: SQLiteStatement, _ column: Int32) -> UnsafeRawBufferPointer? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        let start = sqlite3_column_blob(handle, column)
        return UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : Int(sqlite3_column_bytes(handle, column)))
    }

    /// `Place.addressLine` of the row's address columns, written from the row's bytes straight
    /// into one string: it runs for every place of every page, and five intermediate strings cost
    /// more than the rest of the row.
    static func displayAddress(
        _ handle: SQLiteStatement, street: Int32, city: Int32, province: Int32, postalCode: Int32, country: Int32
    ) -> String? {
        let parts = (
            textBytes(handle, street), textBytes(handle, city), textBytes(handle, province),
            textBytes(handle, postalCode), textBytes(handle, country)
        )
        guard parts.0 != nil || parts.1 != nil || parts.2 != nil || parts.3 != nil || parts.4 != nil else { return nil }
        let capacity =
            (parts.0?.count ?? 0) + (parts.1?.count ?? 0) + (parts.2?.count ?? 0) + (parts.3?.count ?? 0)
            + (parts.4?.count ?? 0) + 8
        return String(unsafeUninitializedCapacity: capacity) { line in
            var length = 0
            func append(_ part: UnsafeRawBufferPointer?, after separator: StaticString) {
                guard let part else { return }
                if length > 0 {
                    separator.withUTF8Buffer { separator in
                        for byte in separator {
                            line[length] = byte
                            length += 1
                        }
                    }
                }
                for byte in part {
                    line[length] = byte
                    length += 1
                }
            }
            append(parts.0, after: ", ")
            append(parts.1, after: ", ")
            append(parts.2, after: ", ")
            // The postal code follows the province in the same part: "NY 13662".
            append(parts.3, after: parts.2 == nil ? ", " : " ")
            append(parts.4, after: ", ")
            return length
        }
    }

    public func place(id: Int64) async throws -> Place? {
        try await measured("place") {
            try await read { db in try Self.places(db, ids: [id])[id] }
        }
    }

    /// Places by id, in no particular order (missing ids are left out).
    static func places(_ db: Database, ids: some Collection<Int64>) throws -> [Int64: Place] {
        let statement = try db.cachedStatement(sql: placeByIDSQL)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var places: [Int64: Place] = [:]
        places.reserveCapacity(ids.count)
        for id in ids {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, id)
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { continue }
            guard code == SQLITE_ROW else { throw db.rawError(code) }
            places[id] = place(at: handle)
        }
        return places
    }

    private static let placeByIDSQL = "SELECT \(placeColumns) FROM places WHERE id = ?"

    public func nearbyPlaces(_ query: NearbyQuery) async throws -> NearbyPage {
        // One statement (`NearestSearch`: the R*Tree walk joined with the place rows).
        try await measured("nearby") { try await readOneStatement { db in try Self.nearbyPlaces(db, query) } }
    }

    /// The nearby search on one connection (the benchmark calls this directly).
    public static func nearbyPlaces(_ db: Database, _ query: NearbyQuery) throws -> NearbyPage {
        try NearestSearch(query: query).page(db)
    }

    public func placesInViewport(_ query: ViewportQuery) async throws -> ViewportResult {
        try await measured("viewport") { try await read { db in try Self.placesInViewport(db, query) } }
    }

    /// The page of a viewport, by `ReadBounds`' rule: a box of at most
    /// `viewportSortCandidates` places (counted in the R*Tree, no further) is sorted whole; a
    /// denser one is walked most-reviewed first (`places_by_review_count`), keeping the places
    /// inside, for at most `viewportWalkRows` rows. Measured on 102,015 places with 34,954 in the
    /// box, `limit=1`: sorting the box took 63 ms; the walk finds its place in a few rows.
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
        let cap = ReadBounds.viewportSortCandidates
        let candidates =
            try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(rtree) LIMIT \(cap + 1))", arguments: rtreeArguments)
            ?? 0
        guard candidates <= cap else { return try walkViewport(db, query) }
        // The R*Tree holds 32-bit boxes rounded outwards: the exact test is on lat/lng.
        let exact = "lat BETWEEN ? AND ? AND (\(exactParts.joined(separator: " OR ")))"
        var after = ""
        var afterArguments: StatementArguments = []
        if let key = query.after {
            after = " AND (review_count < ? OR (review_count = ? AND id > ?))"
            afterArguments = [key.reviewCount, key.reviewCount, key.id]
        }
        let places = try fetchPlaces(
            db,
            sql: """
                SELECT \(placeColumns) FROM places WHERE id IN (\(rtree)) AND \(exact)\(after)
                ORDER BY review_count DESC, id LIMIT ?
                """,
            arguments: rtreeArguments + exactArguments + afterArguments + [query.limit + 1])
        return ViewportResult(items: Array(places.prefix(query.limit)), truncated: places.count > query.limit)
    }

    /// A dense viewport: the places in the order of the page (most-reviewed first, then id) from
    /// the query's cursor on, those inside the box kept, until the page is full or
    /// `ReadBounds.viewportWalkRows` rows were examined; then the page holds what was found and
    /// resumes after the last row examined.
    private static func walkViewport(_ db: Database, _ query: ViewportQuery) throws -> ViewportResult {
        // Two index ranges, each a seek: the rest of the cursor's review count, then below it.
        var ranges: [(sql: String, arguments: [Int64])] = []
        let columns = "SELECT id, lat, lng, review_count FROM places INDEXED BY places_by_review_count"
        if let key = query.after {
            ranges.append(
                ("\(columns) WHERE review_count = ? AND id > ? ORDER BY id", [Int64(key.reviewCount), key.id]))
            ranges.append(
                ("\(columns) WHERE review_count < ? ORDER BY review_count DESC, id", [Int64(key.reviewCount)]))
        } else {
            ranges.append(("\(columns) ORDER BY review_count DESC, id", []))
        }
        var hits: [Int64] = []
        var examined = 0
        var last: ViewportKey? = nil
        walk: for range in ranges {
            let statement = try db.cachedStatement(sql: range.sql)
            let handle = statement.sqliteStatement
            defer { sqlite3_reset(handle) }
            sqlite3_reset(handle)
            for (index, value) in range.arguments.enumerated() { sqlite3_bind_int64(handle, Int32(index + 1), value) }
            while hits.count <= query.limit {
                guard examined < ReadBounds.viewportWalkRows else { break walk }
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { continue walk }
                guard code == SQLITE_ROW else { throw db.rawError(code) }
                examined += 1
                let id = sqlite3_column_int64(handle, 0)
                last = ViewportKey(reviewCount: Int(sqlite3_column_int64(handle, 3)), id: id)
                if query.contains(lat: sqlite3_column_double(handle, 1), lng: sqlite3_column_double(handle, 2)) {
                    hits.append(id)
                }
            }
            break
        }
        let byID = try places(db, ids: hits.prefix(query.limit))
        let items = hits.prefix(query.limit).compactMap { byID[$0] }
        if hits.count > query.limit { return ViewportResult(items: items, truncated: true) }
        // Stopped by the bound with rows left to examine: resume after the last one.
        let stopped = examined >= ReadBounds.viewportWalkRows
        return ViewportResult(items: items, truncated: stopped, nextKey: stopped ? last : nil)
    }

    /// Stores a new place and returns it.
    public func insertPlace(_ draft: PlaceDraft, at time: Timestamp = .now()) async throws -> Place {
        try await pool.write { db in
            let id = try PlaceWriter(db).insert(draft, at: time)
            try PlaceCellsTable(db).maintain(placeID: id, before: nil)
            return try Self.places(db, ids: [id])[id]!
        }
    }

    public func createPlace(_ draft: PlaceDraft, by userID: Int64) async throws -> (place: Place, created: Bool) {
        try await measured("create_place") {
            try await pool.write { db in
                let writer = PlaceWriter(db)
                let time = Timestamp.now()
                // Without a source and an external id the unique index never conflicts: a plain insert.
                guard let newID = try writer.insertIfNew(draft, at: time) else {
                    let existing = try writer.id(source: draft.source, externalID: draft.externalId)
                    guard let existing, let place = try Self.places(db, ids: [existing])[existing] else {
                        throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "place vanished during insert")
                    }
                    return (place, false)
                }
                try db.execute(sql: "UPDATE places SET created_by = ? WHERE id = ?", arguments: [userID, newID])
                try PlaceCellsTable(db).maintain(placeID: newID, before: nil)
                try self.recordEvent(
                    .place(.placeCreated, id: newID, by: userID, at: [(draft.lat, draft.lng)]), at: time, in: db)
                return (try Self.places(db, ids: [newID])[newID]!, true)
            }
        }
    }
}
