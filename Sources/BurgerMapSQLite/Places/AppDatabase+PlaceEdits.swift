import BurgerMapCore
import GRDB

extension AppDatabase {
    /// Changes a place its creator added; the R*Tree follows the point through SpatiaLite's
    /// index triggers, so a moved place is found at its new position.
    public func updatePlace(id: Int64, by userID: Int64, _ edit: PlaceEdit, at time: Timestamp = .now())
        async throws -> OwnerOnlyChange<Place>
    {
        try await measured("update_place") {
            try await pool.write { db in
                guard let creator = try Self.placeCreator(db, id: id) else { return .notFound }
                guard creator == userID else { return .forbidden }
                let writer = PlaceWriter(db)
                guard let stored = try writer.draft(id: id) else { return .notFound }
                let cells = PlaceCellsTable(db)
                let before = try cells.member(id: id)
                let edited = edit.applied(to: stored)
                try writer.update(id: id, with: edited, at: time)
                try cells.maintain(placeID: id, before: before)
                // The old and the new position: a map tile of either changed.
                try self.recordEvent(
                    .place(
                        .placeEdited, id: id, by: userID, at: [(stored.lat, stored.lng), (edited.lat, edited.lng)]),
                    at: time, in: db)
                return .done(try Self.places(db, ids: [id])[id]!)
            }
        }
    }

    /// Deletes a place its creator added, unless it has reviews.
    public func deletePlace(id: Int64, by userID: Int64) async throws -> PlaceDeletion {
        try await measured("delete_place") {
            try await pool.write { db in
                let row = try Row.fetchOne(
                    db, sql: "SELECT created_by, review_count, lat, lng FROM places WHERE id = ?", arguments: [id])
                guard let row else { return .notFound }
                guard row[0] as Int64? == userID else { return .forbidden }
                let reviews: Int = row[1]
                if reviews > 0 { return .hasReviews(reviews) }
                let cells = PlaceCellsTable(db)
                let before = try cells.member(id: id)
                try db.execute(sql: "DELETE FROM places WHERE id = ?", arguments: [id])
                try cells.maintain(placeID: id, before: before)
                try self.recordEvent(
                    .place(.placeRemoved, id: id, by: userID, at: [(row[2], row[3])]), at: .now(), in: db)
                return .deleted
            }
        }
    }

    /// The creator of a place: `.some(nil)` for an imported place, `nil` when there is no place.
    private static func placeCreator(_ db: Database, id: Int64) throws -> Int64?? {
        try Row.fetchOne(db, sql: "SELECT created_by FROM places WHERE id = ?", arguments: [id]).map { row in
            row[0] as Int64?
        }
    }

    /// Every import source with its number of places, by name.
    public func placeSources() async throws -> [PlaceSource] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT source, count(*), sum(review_count > 0) FROM places
                    WHERE source IS NOT NULL GROUP BY source ORDER BY source
                    """
            ).map { row in PlaceSource(name: row[0], places: row[1], reviewedPlaces: row[2]) }
        }
    }

    /// Deletes the places of an import source, except those with reviews (reviews keep their
    /// place); answers how many were deleted and how many stayed.
    public func removePlaceSource(_ name: String) async throws -> (deleted: Int, kept: Int) {
        try await pool.write { db in
            // The places about to go, for the event (a map tile cache forgets their box).
            var removed = PlaceBatchFacts()
            let doomed = try Row.fetchCursor(
                db, sql: "SELECT id, lat, lng FROM places WHERE source = ? AND review_count = 0", arguments: [name])
            while let place = try doomed.next() {
                removed.add(id: place[0], lat: place[1], lng: place[2])
            }
            try db.execute(
                sql: "DELETE FROM places WHERE source = ? AND review_count = 0", arguments: [name])
            let deleted = db.changesCount
            if deleted > 0 { try PlaceCellsTable(db).rebuild() }
            if deleted > 0, let event = removed.event(.placesRemoved, source: name) {
                try self.recordEvent(event, at: .now(), in: db)
            }
            let kept = try Int.fetchOne(db, sql: "SELECT count(*) FROM places WHERE source = ?", arguments: [name]) ?? 0
            if kept == 0 {
                try db.execute(sql: "DELETE FROM place_source_attributions WHERE source = ?", arguments: [name])
            }
            return (deleted, kept)
        }
    }

    public func sourceAttributions() async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT attribution FROM place_source_attributions ORDER BY attribution")
        }
    }
}
