import BurgerMapCore
import Logging
import PostgresNIO

extension PostgresPlaceImportSink {
    /// The import's one event: the places it inserted or changed (their `updated_at` is the
    /// import's time), counted and boxed by one aggregate, listed when at most
    /// `EventDetails.maximumPlaceIDs`, and their cells with the old cells of moved places
    /// (`places_import_moved`, absent on a first load) at the finest level that stays within
    /// `EventDetails.maximumCells`, as the batch built place by place has them
    /// (`PlaceBatchFacts.cellReadLevels`).
    /// - Parameter cells: the written places' cells when the caller gathered them (a first load);
    ///   else they are read back from the table.
    static func recordImport(
        source: String, time: Int64, cells: PlaceBatchFacts? = nil, on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard
            let event = try await importEvent(
                source: source, time: time, table: "places", cells: cells, on: connection, logger: logger)
        else { return }
        try await PostgresEventStore.record(event, at: Timestamp(milliseconds: time), on: connection, logger: logger)
    }

    /// The import's event, read from `table` (`places`, or a first load's staging table before
    /// it takes `places`'s name), or nil when the import wrote no place.
    static func importEvent(
        source: String, time: Int64, table: String, cells gathered: PlaceBatchFacts? = nil,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> DomainEvent? {
        let rows = try await connection.query(
            """
            SELECT count(*), min(lng), min(lat), max(lng), max(lat) FROM \(unescaped: table)
            WHERE source = \(source) AND updated_at = \(time)
            """, logger: logger)
        var box: (count: Int64, west: Double?, south: Double?, east: Double?, north: Double?) = (0, nil, nil, nil, nil)
        for try await row in rows.decode((Int64, Double?, Double?, Double?, Double?).self) { box = row }
        guard box.count > 0, let west = box.west, let south = box.south, let east = box.east, let north = box.north
        else { return nil }
        var ids: [Int64]?
        if box.count <= EventDetails.maximumPlaceIDs {
            var found: [Int64] = []
            for try await id in try await connection.query(
                "SELECT id FROM \(unescaped: table) WHERE source = \(source) AND updated_at = \(time) ORDER BY id",
                logger: logger
            ).decode(Int64.self) {
                found.append(id)
            }
            ids = found
        }
        var moved = false
        for try await exists in try await connection.query(
            "SELECT to_regclass('pg_temp.places_import_moved') IS NOT NULL", logger: logger
        ).decode(Bool.self) {
            moved = exists
        }
        // The distinct cells of the new and (moved places) old positions, at the first level of
        // the core's ladder that has few enough, coarsened as a batch built place by place is.
        var facts = gathered ?? PlaceBatchFacts()
        let finest = Int64(2 * (PlaceCells.keyLevel - PlaceBatchFacts.finestCellLevel))
        for level in gathered == nil ? PlaceBatchFacts.cellReadLevels : [] {
            let shift = Int64(2 * (PlaceCells.keyLevel - level))
            let old = moved ? " UNION SELECT cell >> \(shift - finest) FROM places_import_moved" : ""
            let query: PostgresQuery = """
                SELECT DISTINCT cell >> \(unescaped: String(shift)) FROM \(unescaped: table)
                WHERE source = \(source) AND updated_at = \(time)
                \(unescaped: old) LIMIT \(unescaped: String(PlaceBatchFacts.cellReadCap + 1))
                """
            var cells: [Int64] = []
            for try await cell in try await connection.query(query, logger: logger).decode(Int64.self) {
                cells.append(cell)
            }
            guard cells.count <= PlaceBatchFacts.cellReadCap || level == PlaceBatchFacts.cellReadLevels.last else {
                continue
            }
            for cell in cells { facts.add(cell: cell, at: level) }
            break
        }
        return DomainEvent(
            .placesImported, actor: nil, subject: 0,
            details: EventDetails(
                source: source, count: Int(box.count), bounds: [west, south, east, north], places: ids,
                cells: facts.cells.sorted(), cellLevel: facts.cellLevel))
    }
}
