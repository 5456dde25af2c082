import BurgerMapCore
import Logging
import PostgresNIO

extension PostgresPlaceStore {
    /// A vector tile's clusters and single places: `TileBuilder`'s reads answered by one
    /// prepared statement, which is one snapshot by itself.
    ///
    /// The builder's steps are known before it asks them (its 16 cells' rows; the places of the
    /// cells without a row, or whose row counts one place; the places alone in their cell), so
    /// the statement reads all three at once and the builder is fed from its answer. Through
    /// `readOnlySnapshot` a tile took five round trips (`BEGIN`, `SET LOCAL jit`, rows, members,
    /// `COMMIT`) and more when some place stood alone: 1.1–1.4 ms at zooms 10–20 on 1,000,000
    /// places, against 0.35 ms of work on the server (`scripts/bench-tiles`, PostgreSQL's log).
    /// The per-cell subqueries are `LIMIT`ed to `PlaceCells.threshold` (a cell without a row
    /// holds fewer; a row that counts one place has one to read), which also keeps the planner's
    /// estimate small enough that JIT is never considered without a `SET`. One statement: 0.46–0.84
    /// ms a tile in the same benchmark. (Reading a tile without rows by one range scan instead of
    /// its 16 lookups measured no faster.)
    public func tile(_ query: TileQuery) async throws -> TileContent {
        var builder = TileBuilder(query)
        guard case .rows(_, let cells) = builder.need else { return builder.result }
        let statement = Self.tileQuery(
            level: query.level, cells: cells, shift: 2 * (PlaceCells.keyLevel - query.level),
            reviewedOnly: query.reviewedOnly)
        var rows: [CellRow] = []
        var members: [CellMember] = []
        var singles: [Int64: Place] = [:]
        try await pool.withConnection { connection in
            try await connection.forEachRow(statement, preparedAs: TileText.self, logger: logger) { row in
                let row = row.makeRandomAccess()
                if rows.isEmpty && members.isEmpty {
                    rows = try Self.tileRows(row, level: query.level)
                    members = try Self.tileMembers(row, from: 15)
                }
                if try row[20].decode(Int64?.self) != nil {
                    let place = try Self.place(row, from: 20)
                    singles[place.id] = place
                }
            }
        }
        builder.receive(rows: rows)
        if case .members = builder.need { builder.receive(members: members) }
        if case .places(let ids) = builder.need {
            // Every id is one the statement read (the same rule on the same snapshot).
            builder.receive(places: ids.compactMap { singles[$0] })
        }
        return builder.result
    }

    private static func tileRows(_ row: PostgresRandomAccessRow, level: Int) throws -> [CellRow] {
        let cells = try PostgresBinaryArray.int64s(row[0])
        func summaries(from first: Int) throws -> [CellSummary] {
            let counts = try PostgresBinaryArray.int64s(row[first])
            let columns = try (1...6).map { try PostgresBinaryArray.doubles(row[first + $0]) }
            guard counts.count == cells.count, columns.allSatisfy({ $0.count == cells.count }) else {
                throw StorageError.unexpectedAnswer("a tile's cell rows")
            }
            return cells.indices.map { index in
                CellSummary(
                    count: Int(counts[index]), sumLat: columns[0][index], sumLng: columns[1][index],
                    minLat: columns[2][index], maxLat: columns[3][index], minLng: columns[4][index],
                    maxLng: columns[5][index])
            }
        }
        let all = try summaries(from: 1)
        let reviewed = try summaries(from: 8)
        return cells.indices.map { CellRow(level: level, cell: cells[$0], all: all[$0], reviewed: reviewed[$0]) }
    }

    private static func tileMembers(_ row: PostgresRandomAccessRow, from first: Int) throws -> [CellMember] {
        let ids = try PostgresBinaryArray.int64s(row[first])
        let keys = try PostgresBinaryArray.int64s(row[first + 1])
        let lats = try PostgresBinaryArray.doubles(row[first + 2])
        let lngs = try PostgresBinaryArray.doubles(row[first + 3])
        let reviewed = try PostgresBinaryArray.bools(row[first + 4])
        guard [keys.count, lats.count, lngs.count, reviewed.count].allSatisfy({ $0 == ids.count }) else {
            throw StorageError.unexpectedAnswer("a tile's places")
        }
        return ids.indices.map {
            CellMember(id: ids[$0], key: keys[$0], lat: lats[$0], lng: lngs[$0], reviewed: reviewed[$0])
        }
    }

    /// The statement: one row per place alone in its cell (at least one row), each carrying the
    /// tile's cell rows and read places as arrays (columns 0–19), the place's columns from 20.
    static func tileQuery(level: Int, cells: [Int64], shift: Int, reviewedOnly: Bool) -> PostgresQuery {
        """
        WITH r AS (
            SELECT * FROM place_cells WHERE level = \(Int32(level)) AND cell = ANY(\(cells)::BIGINT[])
        ), wanted AS (
            SELECT c FROM unnest(\(cells)::BIGINT[]) AS c
            WHERE NOT EXISTS (
                SELECT FROM r WHERE r.cell = c AND (CASE WHEN \(reviewedOnly) THEN r.reviewed ELSE r.places END) <> 1)
        ), m AS (
            SELECT p.id, p.cell, p.lat, p.lng, p.review_count > 0 AS reviewed FROM wanted
            CROSS JOIN LATERAL (
                SELECT id, cell, lat, lng, review_count FROM places
                WHERE cell BETWEEN wanted.c << \(Int32(shift)) AND ((wanted.c + 1) << \(Int32(shift))) - 1
                    AND (NOT \(reviewedOnly) OR review_count > 0)
                LIMIT \(Int64(PlaceCells.threshold))
            ) AS p
        ), arrays AS (
            SELECT
                (SELECT coalesce(array_agg(cell ORDER BY cell), '{}') FROM r), \(unescaped: summaryArrays(reviewed: false)),
                \(unescaped: summaryArrays(reviewed: true)),
                (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM m), (SELECT coalesce(array_agg(cell ORDER BY id), '{}') FROM m),
                (SELECT coalesce(array_agg(lat ORDER BY id), '{}') FROM m), (SELECT coalesce(array_agg(lng ORDER BY id), '{}') FROM m),
                (SELECT coalesce(array_agg(reviewed ORDER BY id), '{}') FROM m)
        )
        SELECT arrays.*, s.* FROM arrays LEFT JOIN (
            SELECT \(unescaped: columns) FROM places
            WHERE id IN (SELECT min(id) FROM m GROUP BY cell >> \(Int32(shift)) HAVING count(*) = 1)
        ) AS s ON true
        """
    }

    /// The seven summary columns of `r` as arrays, in the order of `r`'s cells.
    private static func summaryArrays(reviewed: Bool) -> String {
        ["places", "lat_sum", "lng_sum", "lat_min", "lat_max", "lng_min", "lng_max"].map { name in
            let column = reviewed ? (name == "places" ? "reviewed" : "reviewed_" + name) : name
            return "(SELECT coalesce(array_agg(\(column) ORDER BY cell), '{}') FROM r)"
        }.joined(separator: ", ")
    }

    enum TileText: PreparedText {
        static let name = "place_tile"
        static let text = tileQuery(level: 0, cells: [], shift: 0, reviewedOnly: false)
    }
}
