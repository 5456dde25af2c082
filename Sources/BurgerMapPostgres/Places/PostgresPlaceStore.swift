import BurgerMapCore
import CGeoIndex
import Logging
import PostgresNIO

/// Places in PostgreSQL + PostGIS, with the same answers as the SQLite engine (`AppDatabase`).
///
/// Every value a client sends reaches SQL only as a bound parameter (`PostgresQuery`'s string
/// interpolation binds); `\(unescaped:)` only ever carries the constants of this file.
public struct PostgresPlaceStore: PlaceStore {
    let pool: PostgresPool
    let logger: Logger
    /// Records the events of this store's writes, in their transactions.
    let events: PostgresEventStore

    /// The `places` columns that make a `Place`, in the order `place(_:)` reads them.
    package static let columns = """
        id, name, lat, lng, address, phone, category, source, external_id, review_count, rating_sum, created_at,
        city, province, postal_code, country, cover_photo_id, website, names, opening_hours, timezone, attributes
        """

    /// How many columns `columns` selects (a query's own columns follow them).
    package static let columnCount = 22

    /// A place's position as a PostGIS point in degrees (SRID 4326), exactly as the GiST index
    /// `places_by_point` holds it: a query that means to use the index spells it so.
    static let point = point(of: nil)

    /// `point` for the `places` row named `alias` in a query that joins other tables.
    static func point(of alias: String?) -> String {
        let prefix = alias.map { $0 + "." } ?? ""
        return "ST_SetSRID(ST_MakePoint(\(prefix)lng, \(prefix)lat), 4326)"
    }

    /// The `Place` of a row that selects `columns` from column `first` on.
    package static func place(_ row: PostgresRandomAccessRow, from first: Int = 0) throws -> Place {
        func value<T: PostgresDecodable>(_ column: Int, _ type: T.Type = T.self) throws -> T {
            try row[first + column].decode(T.self)
        }
        let reviewCount = Int(try value(9, Int64.self))
        let ratingSum = Double(try value(10, Int64.self))
        return Place(
            id: try value(0), name: try value(1), lat: try value(2), lng: try value(3),
            address: Place.addressLine(
                street: try value(4), city: try value(12), province: try value(13), postalCode: try value(14),
                country: try value(15)),
            phone: try value(5), category: try value(6), website: try value(17), source: try value(7),
            externalId: try value(8), reviewCount: reviewCount,
            ratingAvg: reviewCount > 0 ? ratingSum / Double(reviewCount) : nil,
            coverPhotoUrl: try value(16, Int64?.self).map(PhotoURL.full),
            createdAt: Timestamp(milliseconds: try value(11)),
            storedNames: try value(18, String?.self), openingHours: try value(19),
            timeZone: try value(20), attributes: try value(21))
    }

    /// Every place a query that selects `columns` returns, in its order.
    static func places(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> [Place] {
        var places: [Place] = []
        for try await row in rows {
            places.append(try place(row.makeRandomAccess()))
        }
        return places
    }

    public func place(id: Int64) async throws -> Place? {
        try await Self.places(
            pool.query("SELECT \(unescaped: Self.columns) FROM places WHERE id = \(id)", logger: logger)
        ).first
    }

    public func nearbyPlaces(_ query: NearbyQuery) async throws -> NearbyPage {
        try await PostgresNearestSearch(query: query, pool: pool, logger: logger).page()
    }

    public func createPlace(_ draft: PlaceDraft, by userID: Int64) async throws -> (place: Place, created: Bool) {
        let now = Timestamp.now().milliseconds
        // Without a source and an external id the unique index never conflicts: a plain insert.
        // A concurrent insert of the same pair makes ON CONFLICT wait for it to commit, and the
        // SELECT that follows (a statement of its own, with a new snapshot) then sees it.
        let inserted = try await events.transaction(logger: logger) { connection in
            let inserted = try await Self.places(
                connection.query(
                    """
                    INSERT INTO places (name, lat, lng, address, city, province, postal_code, country, phone, category,
                        website, source, external_id, created_at, updated_at, created_by, search_name, search_address,
                        cell, names, opening_hours, timezone, attributes, search_names)
                    VALUES (\(draft.name), \(draft.lat), \(draft.lng), \(draft.address), \(draft.city), \(draft.province),
                        \(draft.postalCode), \(draft.country), \(draft.phone), \(draft.category), \(draft.website),
                        \(draft.source), \(draft.externalId), \(now), \(now), \(userID), \(draft.searchName),
                        \(draft.searchAddress), \(PlaceCells.key(lat: draft.lat, lng: draft.lng)), \(draft.storedNames),
                        \(draft.openingHours), \(draft.timeZone), \(draft.attributes), \(draft.searchNames))
                    ON CONFLICT (source, external_id) WHERE source IS NOT NULL AND external_id IS NOT NULL DO NOTHING
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger))
            if let place = inserted.first {
                try await PostgresSearchPairs(connection: connection, logger: logger).list(placeIDs: [place.id])
                try await PostgresPlaceCells(connection: connection, logger: logger).maintain(
                    from: nil, to: CellMember(place))
                try await PostgresEventStore.record(
                    .place(.placeCreated, id: place.id, by: userID, at: [(place.lat, place.lng)]),
                    at: Timestamp(milliseconds: now), on: connection, logger: logger)
            }
            return inserted
        }
        if let place = inserted.first { return (place, true) }
        let existing = try await Self.places(
            pool.query(
                """
                SELECT \(unescaped: Self.columns) FROM places
                WHERE source = \(draft.source) AND external_id = \(draft.externalId)
                """, logger: logger))
        guard let place = existing.first else { throw PostgresEngineError.server("place vanished during insert") }
        return (place, false)
    }

    public func updatePlace(id: Int64, by userID: Int64, _ edit: PlaceEdit, at time: Timestamp) async throws
        -> OwnerOnlyChange<Place>
    {
        try await events.transaction(logger: logger) { connection in
            // FOR UPDATE: two edits of one place apply one after the other, each to the other's result.
            let rows = try await connection.query(
                """
                SELECT created_by, name, lat, lng, address, city, province, postal_code, country, phone, category,
                    website, source, external_id, names, opening_hours, timezone, attributes
                FROM places WHERE id = \(id) FOR UPDATE
                """, logger: logger)
            var found: (creator: Int64?, draft: PlaceDraft)?
            for try await row in rows {
                let row = row.makeRandomAccess()
                func value<T: PostgresDecodable>(_ column: Int) throws -> T { try row[column].decode(T.self) }
                found = (
                    try value(0),
                    PlaceDraft(
                        name: try value(1), lat: try value(2), lng: try value(3), address: try value(4),
                        city: try value(5), province: try value(6), postalCode: try value(7), country: try value(8),
                        phone: try value(9), category: try value(10), website: try value(11), source: try value(12),
                        externalId: try value(13), names: StoredNames.names(try value(14) as String?),
                        openingHours: try value(15), timeZone: try value(16), attributes: try value(17))
                )
            }
            guard let found else { return .notFound }
            guard found.creator == userID else { return .forbidden }
            let draft = edit.applied(to: found.draft)
            let cells = PostgresPlaceCells(connection: connection, logger: logger)
            let before = try await cells.member(id: id)
            let updated = try await Self.places(
                connection.query(
                    """
                    UPDATE places SET name = \(draft.name), lat = \(draft.lat), lng = \(draft.lng),
                        address = \(draft.address), city = \(draft.city), province = \(draft.province),
                        postal_code = \(draft.postalCode), country = \(draft.country), phone = \(draft.phone),
                        category = \(draft.category), website = \(draft.website), updated_at = \(time.milliseconds),
                        search_name = \(draft.searchName), search_address = \(draft.searchAddress),
                        cell = \(PlaceCells.key(lat: draft.lat, lng: draft.lng)), names = \(draft.storedNames),
                        opening_hours = \(draft.openingHours), timezone = \(draft.timeZone),
                        attributes = \(draft.attributes), search_names = \(draft.searchNames)
                    WHERE id = \(id)
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger))
            guard let place = updated.first else { return .notFound }
            try await PostgresSearchPairs(connection: connection, logger: logger).list(placeIDs: [id])
            try await cells.maintain(from: before, to: CellMember(place))
            try await PostgresEventStore.record(
                .place(
                    .placeEdited, id: id, by: userID,
                    at: [(found.draft.lat, found.draft.lng), (place.lat, place.lng)]),
                at: time, on: connection, logger: logger)
            return .done(place)
        }
    }

    public func deletePlace(id: Int64, by userID: Int64) async throws -> PlaceDeletion {
        try await events.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                "SELECT created_by, review_count, lat, lng FROM places WHERE id = \(id) FOR UPDATE", logger: logger)
            var found: (creator: Int64?, reviews: Int64, lat: Double, lng: Double)?
            for try await row in rows.decode((Int64?, Int64, Double, Double).self) { found = row }
            guard let found else { return .notFound }
            guard found.creator == userID else { return .forbidden }
            if found.reviews > 0 { return .hasReviews(Int(found.reviews)) }
            let cells = PostgresPlaceCells(connection: connection, logger: logger)
            let before = try await cells.member(id: id)
            try await connection.query("DELETE FROM places WHERE id = \(id)", logger: logger)
            try await cells.maintain(placeID: id, before: before)
            try await PostgresEventStore.record(
                .place(.placeRemoved, id: id, by: userID, at: [(found.lat, found.lng)]),
                at: .now(), on: connection, logger: logger)
            return .deleted
        }
    }

    public func sourceAttributions() async throws -> [String] {
        var attributions: [String] = []
        for try await attribution in try await pool.query(
            """
            SELECT attribution FROM (SELECT DISTINCT attribution FROM place_source_attributions) AS a
            ORDER BY attribution COLLATE "C"
            """,
            logger: logger
        ).decode(String.self) {
            attributions.append(attribution)
        }
        return attributions
    }

    public func placeSources() async throws -> [PlaceSource] {
        let rows = try await pool.query(
            """
            SELECT source, count(*), count(*) FILTER (WHERE review_count > 0) FROM places
            WHERE source IS NOT NULL GROUP BY source ORDER BY source COLLATE "C"
            """, logger: logger)
        var sources: [PlaceSource] = []
        for try await (name, places, reviewed) in rows.decode((String, Int64, Int64).self) {
            sources.append(PlaceSource(name: name, places: Int(places), reviewedPlaces: Int(reviewed)))
        }
        return sources
    }

    public func removePlaceSource(_ name: String) async throws -> (deleted: Int, kept: Int) {
        // One statement: the delete and the count of what stays see the same snapshot.
        try await events.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                WITH deleted AS (
                    DELETE FROM places WHERE source = \(name) AND review_count = 0 RETURNING id, lat, lng
                )
                SELECT d.id, d.lat, d.lng, k.kept
                FROM (SELECT count(*) AS kept FROM places WHERE source = \(name) AND review_count > 0) AS k
                LEFT JOIN deleted AS d ON true
                """, logger: logger)
            var kept = 0
            var removed = PlaceBatchFacts()
            for try await (id, lat, lng, stayed) in rows.decode((Int64?, Double?, Double?, Int64).self) {
                kept = Int(stayed)
                if let id, let lat, let lng { removed.add(id: id, lat: lat, lng: lng) }
            }
            if kept == 0 {
                try await connection.query(
                    "DELETE FROM place_source_attributions WHERE source = \(name)", logger: logger)
            }
            if removed.count > 0 {
                try await PostgresPlaceCells(connection: connection, logger: logger).rebuild()
                if let event = removed.event(.placesRemoved, source: name) {
                    try await PostgresEventStore.record(event, at: .now(), on: connection, logger: logger)
                }
            }
            return (removed.count, kept)
        }
    }
}
