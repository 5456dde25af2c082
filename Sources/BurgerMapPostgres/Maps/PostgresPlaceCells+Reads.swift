import BurgerMapCore
import Logging
import PostgresNIO

// MARK: Reads of cell rows and members

extension PostgresPlaceCells {
    /// The stored rows of these cells.
    func rows(_ ids: [CellID]) async throws -> [CellRow] {
        guard !ids.isEmpty else { return [] }
        return try await decodeRows(
            Self.rowsQuery(levels: ids.map { Int64($0.level) }, cells: ids.map(\.cell)), RowsText.self)
    }

    /// The stored rows of one level whose cells fall in these key runs, for a view: with only
    /// the summary that it counts (all places, or the reviewed ones); the other is left empty.
    func rows(level: Int, runs: [ClosedRange<Int64>], reviewedOnly: Bool) async throws -> [CellRow] {
        guard !runs.isEmpty else { return [] }
        let (lows, highs) = (runs.map(\.lowerBound), runs.map(\.upperBound))
        var found: [CellRow] = []
        let query = Self.levelRowsQuery(level: level, lows: lows, highs: highs, reviewedOnly: reviewedOnly)
        let decode = { (row: PostgresRow) in
            let row = row.makeRandomAccess()
            let cells = try PostgresBinaryArray.int64s(row[0])
            let summaries = try CellSummaryColumns(row, from: 1)
            guard summaries.count == cells.count else { throw StorageError.unexpectedAnswer("place_cells rows") }
            found.reserveCapacity(cells.count)
            for index in cells.indices {
                let summary = summaries.summary(index)
                found.append(
                    CellRow(
                        level: level, cell: cells[index], all: reviewedOnly ? .empty : summary,
                        reviewed: reviewedOnly ? summary : .empty))
            }
        }
        let text: any PreparedText.Type = reviewedOnly ? LevelReviewedRowsText.self : LevelRowsText.self
        try await connection.forEachRow(query, preparedAs: text, logger: logger, decode)
        return found
    }

    /// The places whose keys fall in these ranges.
    /// - Parameter box: a view's box: places outside it are left out here (the view tests each
    ///   place it gets against the box again; the band along a box's edge is about half
    ///   outside it, and every place sent costs the server and the client more than its test).
    func members(
        in ranges: [ClosedRange<Int64>], reviewedOnly: Bool = false, within box: ClusterQuery? = nil
    ) async throws -> [CellMember] {
        guard !ranges.isEmpty else { return [] }
        let spans = box?.longitudeSpans ?? [-180...180]
        let query = Self.membersQuery(
            lows: ranges.map(\.lowerBound), highs: ranges.map(\.upperBound), reviewedOnly: reviewedOnly,
            south: box?.south ?? -90, north: box?.north ?? 90, spans: (spans[0], spans.count > 1 ? spans[1] : spans[0]))
        var members: [CellMember] = []
        try await connection.forEachRow(query, preparedAs: MembersText.self, logger: logger) { row in
            let row = row.makeRandomAccess()
            let (ids, keys) = (try PostgresBinaryArray.int64s(row[0]), try PostgresBinaryArray.int64s(row[1]))
            let (lats, lngs) = (try PostgresBinaryArray.doubles(row[2]), try PostgresBinaryArray.doubles(row[3]))
            let reviewed = try PostgresBinaryArray.bools(row[4])
            guard keys.count == ids.count, lats.count == ids.count, lngs.count == ids.count,
                reviewed.count == ids.count
            else { throw StorageError.unexpectedAnswer("the places of cells") }
            members.reserveCapacity(ids.count)
            for index in ids.indices {
                members.append(
                    CellMember(
                        id: ids[index], key: keys[index], lat: lats[index], lng: lngs[index],
                        reviewed: reviewed[index]))
            }
        }
        return members
    }

    /// Places in key order after a place (`cell`, then `id`), as arrays, for a build of
    /// every row.
    func places(in table: String, after: (cell: Int64, id: Int64), limit: Int) async throws -> (
        keys: [Int64], ids: [Int64], lats: [Double], lngs: [Double], reviewed: [Bool]
    ) {
        let rows = try await connection.query(
            """
            SELECT coalesce(array_agg(cell), '{}'), coalesce(array_agg(id), '{}'), coalesce(array_agg(lat), '{}'),
                coalesce(array_agg(lng), '{}'), coalesce(array_agg(review_count > 0), '{}')
            FROM (
                SELECT cell, id, lat, lng, review_count FROM \(unescaped: table)
                WHERE (cell, id) > (\(after.cell), \(after.id)) ORDER BY cell, id LIMIT \(Int64(limit))
            ) AS p
            """, logger: logger)
        for try await row in rows {
            let row = row.makeRandomAccess()
            let page = (
                keys: try PostgresBinaryArray.int64s(row[0]), ids: try PostgresBinaryArray.int64s(row[1]),
                lats: try PostgresBinaryArray.doubles(row[2]), lngs: try PostgresBinaryArray.doubles(row[3]),
                reviewed: try PostgresBinaryArray.bools(row[4])
            )
            let count = page.keys.count
            guard page.ids.count == count, page.lats.count == count, page.lngs.count == count,
                page.reviewed.count == count
            else { throw StorageError.unexpectedAnswer("the places in cell order") }
            return page
        }
        return ([], [], [], [], [])
    }

    private func decodeRows(_ query: PostgresQuery, _ text: any PreparedText.Type) async throws -> [CellRow] {
        var found: [CellRow] = []
        try await connection.forEachRow(query, preparedAs: text, logger: logger) { row in
            let row = row.makeRandomAccess()
            let levels = try PostgresBinaryArray.int64s(row[0])
            let cells = try PostgresBinaryArray.int64s(row[1])
            let all = try CellSummaryColumns(row, from: 2)
            let reviewed = try CellSummaryColumns(row, from: 9)
            guard cells.count == levels.count, all.count == cells.count, reviewed.count == cells.count else {
                throw StorageError.unexpectedAnswer("place_cells rows")
            }
            found.reserveCapacity(cells.count)
            for index in cells.indices {
                found.append(
                    CellRow(
                        level: Int(levels[index]), cell: cells[index], all: all.summary(index),
                        reviewed: reviewed.summary(index)))
            }
        }
        return found
    }
}

// MARK: The statements

/// Each read answers one row of arrays, a column each (`array_agg`): decoded row by row, a city
/// view's ~5,000 rows cost the client 14 ms of an 18 ms view whose statements ran 3 ms on the
/// server (`scripts/bench-clusters --engines`, PostgreSQL's log). Each array element is looked
/// up on its own (a LATERAL subquery that `OFFSET 0` keeps from being flattened into a join):
/// left to the planner, the join of a few hundred keys with the tables became scans of them,
/// 18–430 ms a view on 1,000,000 places against 2–3 ms on SQLite. The statements are prepared
/// (`PreparedText`): unnamed, each was parsed and planned again for every read of a view.
extension PostgresPlaceCells {
    /// `columns` as one array each (`level` as BIGINT), empty when no row matched.
    private static let arrays = columns.split(separator: ",").map { column in
        let name = column.filter { !$0.isWhitespace }
        return "coalesce(array_agg(p.\(name)\(name == "level" ? "::BIGINT" : "")), '{}')"
    }.joined(separator: ", ")

    static func rowsQuery(levels: [Int64], cells: [Int64]) -> PostgresQuery {
        """
        SELECT \(unescaped: arrays) FROM unnest(\(levels)::BIGINT[], \(cells)::BIGINT[]) AS i(l, c)
        CROSS JOIN LATERAL (
            SELECT \(unescaped: columns) FROM place_cells WHERE level = i.l AND cell = i.c OFFSET 0
        ) AS p
        """
    }

    /// The columns of the summary that a view counts.
    private static func summaryColumns(reviewed: Bool) -> String {
        let names = ["places", "lat_sum", "lng_sum", "lat_min", "lat_max", "lng_min", "lng_max"]
        return names.map { name in
            let column = reviewed ? (name == "places" ? "reviewed" : "reviewed_" + name) : name
            return "coalesce(array_agg(p.\(column)), '{}')"
        }.joined(separator: ", ")
    }

    static func levelRowsQuery(level: Int, lows: [Int64], highs: [Int64], reviewedOnly: Bool) -> PostgresQuery {
        """
        SELECT coalesce(array_agg(p.cell), '{}'), \(unescaped: summaryColumns(reviewed: reviewedOnly))
        FROM unnest(\(lows)::BIGINT[], \(highs)::BIGINT[]) AS r(lo, hi)
        CROSS JOIN LATERAL (
            SELECT \(unescaped: columns) FROM place_cells WHERE level = \(Int32(level)) AND cell BETWEEN r.lo AND r.hi OFFSET 0
        ) AS p
        """
    }

    static func membersQuery(
        lows: [Int64], highs: [Int64], reviewedOnly: Bool, south: Double, north: Double,
        spans: (ClosedRange<Double>, ClosedRange<Double>)
    ) -> PostgresQuery {
        """
        SELECT coalesce(array_agg(p.id), '{}'), coalesce(array_agg(p.cell), '{}'),
            coalesce(array_agg(p.lat), '{}'), coalesce(array_agg(p.lng), '{}'),
            coalesce(array_agg(p.review_count > 0), '{}')
        FROM unnest(\(lows)::BIGINT[], \(highs)::BIGINT[]) AS r(lo, hi)
        CROSS JOIN LATERAL (
            SELECT id, cell, lat, lng, review_count FROM places
            WHERE cell BETWEEN r.lo AND r.hi AND (NOT \(reviewedOnly) OR review_count > 0) OFFSET 0
        ) AS p
        WHERE p.lat >= \(south) AND p.lat <= \(north)
            AND (p.lng BETWEEN \(spans.0.lowerBound) AND \(spans.0.upperBound)
                OR p.lng BETWEEN \(spans.1.lowerBound) AND \(spans.1.upperBound))
        """
    }

    enum RowsText: PreparedText {
        static let name = "place_cells_rows"
        static let text = rowsQuery(levels: [], cells: [])
    }

    enum LevelRowsText: PreparedText {
        static let name = "place_cells_level_rows"
        static let text = levelRowsQuery(level: 0, lows: [], highs: [], reviewedOnly: false)
    }

    enum LevelReviewedRowsText: PreparedText {
        static let name = "place_cells_level_reviewed_rows"
        static let text = levelRowsQuery(level: 0, lows: [], highs: [], reviewedOnly: true)
    }

    enum MembersText: PreparedText {
        static let name = "place_cells_members"
        static let text = membersQuery(
            lows: [], highs: [], reviewedOnly: false, south: 0, north: 0, spans: (0...0, 0...0))
    }
}

/// The seven columns of a `CellSummary` read as arrays, one element per cell.
private struct CellSummaryColumns {
    let counts: [Int64]
    let sumLat, sumLng, minLat, maxLat, minLng, maxLng: [Double]

    init(_ row: PostgresRandomAccessRow, from first: Int) throws {
        counts = try PostgresBinaryArray.int64s(row[first])
        sumLat = try PostgresBinaryArray.doubles(row[first + 1])
        sumLng = try PostgresBinaryArray.doubles(row[first + 2])
        minLat = try PostgresBinaryArray.doubles(row[first + 3])
        maxLat = try PostgresBinaryArray.doubles(row[first + 4])
        minLng = try PostgresBinaryArray.doubles(row[first + 5])
        maxLng = try PostgresBinaryArray.doubles(row[first + 6])
    }

    /// How many cells, or -1 when the arrays differ in length.
    var count: Int {
        let lengths = [sumLat, sumLng, minLat, maxLat, minLng, maxLng].map(\.count)
        return lengths.allSatisfy { $0 == counts.count } ? counts.count : -1
    }

    func summary(_ index: Int) -> CellSummary {
        CellSummary(
            count: Int(counts[index]), sumLat: sumLat[index], sumLng: sumLng[index], minLat: minLat[index],
            maxLat: maxLat[index], minLng: minLng[index], maxLng: maxLng[index])
    }
}
