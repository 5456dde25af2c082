import BurgerMapCore
import Logging
import PostgresNIO

/// `place_cells` and the places' cell index on one connection: SQLite's `PlaceCellsTable`, with
/// each read of many cells or ranges in one statement (arrays and `unnest`), since a round trip
/// costs more here than the read (the reads and their statements: PostgresPlaceCells+Reads.swift).
///
/// Writers take turns: the rows hold absolute counts, so two transactions that each read a row,
/// add a place and write it back would lose one place. Every maintenance takes the transaction's
/// advisory lock `lockKey` first, then reads what the last committed writer left (READ COMMITTED
/// gives each statement a new snapshot). Only the writes that change clusters take it: a new,
/// moved or deleted place, a place's first review or its last going, an import.
struct PostgresPlaceCells {
    let connection: PostgresConnection
    let logger: Logger

    static let lockKey: Int64 = 0x6365_6C6C_73  // "cells"

    static let columns = """
        level, cell, places, lat_sum, lng_sum, lat_min, lat_max, lng_min, lng_max,
        reviewed, reviewed_lat_sum, reviewed_lng_sum, reviewed_lat_min, reviewed_lat_max, reviewed_lng_min,
        reviewed_lng_max
        """

    /// A place as the cluster rows count it.
    func member(id: Int64) async throws -> CellMember? {
        let rows = try await connection.query(
            "SELECT id, cell, lat, lng, review_count FROM places WHERE id = \(id)", logger: logger)
        for try await (id, key, lat, lng, reviews) in rows.decode((Int64, Int64, Double, Double, Int64).self) {
            return CellMember(id: id, key: key, lat: lat, lng: lng, reviewed: reviews > 0)
        }
        return nil
    }

    /// Keeps the rows exact after a place was added, moved or deleted, or gained its first
    /// review or lost its last (`before`: the place as it was, or `nil` for a new one).
    func maintain(placeID: Int64, before: CellMember?) async throws {
        try await maintain(from: before, to: try await member(id: placeID))
    }

    /// The same, for a caller that knows the place as it is (from its write's `RETURNING`).
    func maintain(from before: CellMember?, to after: CellMember?) async throws {
        let plans = CellMaintenance.plans(from: before, to: after)
        guard !plans.isEmpty else { return }
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
        for plan in plans {
            let rows = try await rows(plan.cellsToRead)
            let update = plan.update(rows: rows, members: try await members(in: plan.ranges(given: rows)))
            if !update.delete.isEmpty {
                let levels = update.delete.map { Int64($0.level) }
                let cells = update.delete.map(\.cell)
                try await connection.query(
                    """
                    DELETE FROM place_cells
                    WHERE (level, cell) IN (SELECT l::INTEGER, c FROM unnest(\(levels)::BIGINT[], \(cells)::BIGINT[]) AS i(l, c))
                    """, logger: logger)
            }
            try await store(update.store)
        }
    }

    /// Writes rows, replacing those of the same cells.
    private func store(_ rows: [CellRow]) async throws {
        for start in stride(from: 0, to: rows.count, by: 10_000) {
            let batch = rows[start..<min(start + 10_000, rows.count)]
            func numbers(_ value: (CellSummary) -> Double, _ reviewed: Bool) -> [Double] {
                batch.map { value(reviewed ? $0.reviewed : $0.all) }
            }
            var columns: [[Double]] = []
            for reviewed in [false, true] {
                columns += [
                    numbers(\.sumLat, reviewed), numbers(\.sumLng, reviewed), numbers(\.minLat, reviewed),
                    numbers(\.maxLat, reviewed), numbers(\.minLng, reviewed), numbers(\.maxLng, reviewed),
                ]
            }
            let levels = batch.map { Int64($0.level) }
            let cells = batch.map(\.cell)
            let places = batch.map { Int64($0.all.count) }
            let reviewed = batch.map { Int64($0.reviewed.count) }
            try await connection.query(
                """
                INSERT INTO place_cells (\(unescaped: Self.columns))
                SELECT l::INTEGER, c, n, a1, a2, a3, a4, a5, a6, r, r1, r2, r3, r4, r5, r6
                FROM unnest(\(levels)::BIGINT[], \(cells)::BIGINT[], \(places)::BIGINT[],
                    \(columns[0])::FLOAT8[], \(columns[1])::FLOAT8[], \(columns[2])::FLOAT8[],
                    \(columns[3])::FLOAT8[], \(columns[4])::FLOAT8[], \(columns[5])::FLOAT8[],
                    \(reviewed)::BIGINT[],
                    \(columns[6])::FLOAT8[], \(columns[7])::FLOAT8[], \(columns[8])::FLOAT8[],
                    \(columns[9])::FLOAT8[], \(columns[10])::FLOAT8[], \(columns[11])::FLOAT8[]
                ) AS i(l, c, n, a1, a2, a3, a4, a5, a6, r, r1, r2, r3, r4, r5, r6)
                ON CONFLICT (level, cell) DO UPDATE SET
                    places = EXCLUDED.places, lat_sum = EXCLUDED.lat_sum, lng_sum = EXCLUDED.lng_sum,
                    lat_min = EXCLUDED.lat_min, lat_max = EXCLUDED.lat_max, lng_min = EXCLUDED.lng_min,
                    lng_max = EXCLUDED.lng_max, reviewed = EXCLUDED.reviewed,
                    reviewed_lat_sum = EXCLUDED.reviewed_lat_sum, reviewed_lng_sum = EXCLUDED.reviewed_lng_sum,
                    reviewed_lat_min = EXCLUDED.reviewed_lat_min, reviewed_lat_max = EXCLUDED.reviewed_lat_max,
                    reviewed_lng_min = EXCLUDED.reviewed_lng_min, reviewed_lng_max = EXCLUDED.reviewed_lng_max
                """, logger: logger)
        }
    }

    /// Builds every row anew from the places, in one pass over the cell index (after an import
    /// or a removed source). The places come in pages of `rebuildPage`, each as one row of
    /// arrays (`PostgresPlaceCells+Reads.swift`): row by row, decoding 1,000,000 places took the
    /// client 2.6 s of the build.
    func rebuild(page: Int = rebuildPage) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
        try await replaceAll(with: try await rows(readingFrom: "places", page: page))
    }

    /// Every row, built from the places of `table` (`places`, or a first load's staging table)
    /// in one pass over its cell index.
    func rows(readingFrom table: String, page: Int = rebuildPage) async throws -> [CellRow] {
        var builder = CellRowBuilder()
        var after = (cell: Int64.min, id: Int64.min)
        let limit = max(1, page)
        while true {
            let page = try await places(in: table, after: after, limit: limit)
            for index in page.keys.indices {
                // The pages come in key order (their subquery's ORDER BY); the builder needs it.
                guard page.keys[index] >= after.cell else {
                    throw StorageError.unexpectedAnswer("the places in cell order")
                }
                // The greatest (cell, id) read so far starts the next page, whatever order ties came in.
                if (page.keys[index], page.ids[index]) > after { after = (page.keys[index], page.ids[index]) }
                builder.add(
                    key: page.keys[index], lat: page.lats[index], lng: page.lngs[index], reviewed: page.reviewed[index])
            }
            if page.keys.count < limit { break }
        }
        builder.finish()
        return builder.rows
    }

    /// Puts `rows` in place of every row, under the transaction's advisory lock `lockKey`.
    func replaceAll(with rows: [CellRow]) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
        try await connection.query("DELETE FROM place_cells", logger: logger)
        try await store(rows)
    }

    static let rebuildPage = 100_000
}
