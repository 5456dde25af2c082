import BurgerMapCore
import GRDB
import GRDBSQLite

extension AppDatabase {
    /// The places of a box grouped into the cells of a zoom level, counted exactly
    /// (`ClusterBuilder` says what to read; this answers it from one read snapshot).
    public func clusters(_ query: ClusterQuery) async throws -> ClusterResult {
        try await measured("clusters") { try await pool.read { db in try Self.clusters(db, query) } }
    }

    static func clusters(_ db: Database, _ query: ClusterQuery) throws -> ClusterResult {
        var builder = ClusterBuilder(query)
        try answer(&builder, db)
        return builder.result
    }

    /// A vector tile's clusters and single places, from one read snapshot.
    public func tile(_ query: TileQuery) async throws -> TileContent {
        try await measured("tile") {
            try await pool.read { db in
                var builder = TileBuilder(query)
                try Self.answer(&builder, db)
                return builder.result
            }
        }
    }

    /// Answers what a cluster or tile builder asks until it asks nothing more.
    static func answer<Builder: CellReadingBuilder>(_ builder: inout Builder, _ db: Database) throws {
        while let need = builder.need {
            switch need {
            case .rows(let level, let cells):
                builder.receive(rows: try PlaceCellsTable(db).rows(level: level, runs: PlaceCells.runs(cells)))
            case .members(let ranges, let reviewedOnly):
                builder.receive(members: try PlaceCellsTable(db).members(in: ranges, reviewedOnly: reviewedOnly))
            case .places(let ids):
                builder.receive(places: Array(try places(db, ids: ids).values))
            }
        }
    }
}

/// `place_cells` and the places' cell index, on one connection: reads by cell and by key range
/// (raw statements: a view reads up to hundreds of cells, and GRDB's per-call cost would be
/// most of the view's time), and the writes that keep the rows exact.
struct PlaceCellsTable {
    let db: Database

    init(_ db: Database) {
        self.db = db
    }

    static let columns = """
        level, cell, places, lat_sum, lng_sum, lat_min, lat_max, lng_min, lng_max,
        reviewed, reviewed_lat_sum, reviewed_lng_sum, reviewed_lat_min, reviewed_lat_max, reviewed_lng_min,
        reviewed_lng_max
        """

    /// The stored rows of these cells.
    func rows(_ ids: [CellID]) throws -> [CellRow] {
        let statement = try db.cachedStatement(
            sql: "SELECT \(Self.columns) FROM place_cells WHERE level = ? AND cell = ?")
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var rows: [CellRow] = []
        for id in ids {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, Int64(id.level))
            sqlite3_bind_int64(handle, 2, id.cell)
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { continue }
            guard code == SQLITE_ROW else { throw db.rawError(code) }
            rows.append(Self.row(handle))
        }
        return rows
    }

    /// The stored rows of one level whose cells fall in these key runs.
    func rows(level: Int, runs: [ClosedRange<Int64>]) throws -> [CellRow] {
        let statement = try db.cachedStatement(
            sql: "SELECT \(Self.columns) FROM place_cells WHERE level = ? AND cell BETWEEN ? AND ?")
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var rows: [CellRow] = []
        for run in runs {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, Int64(level))
            sqlite3_bind_int64(handle, 2, run.lowerBound)
            sqlite3_bind_int64(handle, 3, run.upperBound)
            var code = sqlite3_step(handle)
            while code == SQLITE_ROW {
                rows.append(Self.row(handle))
                code = sqlite3_step(handle)
            }
            guard code == SQLITE_DONE else { throw db.rawError(code) }
        }
        return rows
    }

    private static func row(_ handle: SQLiteStatement) -> CellRow {
        func summary(_ first: Int32) -> CellSummary {
            CellSummary(
                count: Int(sqlite3_column_int64(handle, first)), sumLat: sqlite3_column_double(handle, first + 1),
                sumLng: sqlite3_column_double(handle, first + 2), minLat: sqlite3_column_double(handle, first + 3),
                maxLat: sqlite3_column_double(handle, first + 4), minLng: sqlite3_column_double(handle, first + 5),
                maxLng: sqlite3_column_double(handle, first + 6))
        }
        return CellRow(
            level: Int(sqlite3_column_int64(handle, 0)), cell: sqlite3_column_int64(handle, 1), all: summary(2),
            reviewed: summary(9))
    }

    /// The places whose keys fall in these ranges.
    func members(in ranges: [ClosedRange<Int64>], reviewedOnly: Bool = false) throws -> [CellMember] {
        let statement = try db.cachedStatement(
            sql: reviewedOnly
                ? """
                SELECT id, cell, lat, lng, review_count FROM places INDEXED BY places_reviewed_by_cell
                WHERE cell BETWEEN ? AND ? AND review_count > 0
                """
                : "SELECT id, cell, lat, lng, review_count FROM places INDEXED BY places_by_cell WHERE cell BETWEEN ? AND ?"
        )
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var members: [CellMember] = []
        for range in ranges {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, range.lowerBound)
            sqlite3_bind_int64(handle, 2, range.upperBound)
            var code = sqlite3_step(handle)
            while code == SQLITE_ROW {
                members.append(
                    CellMember(
                        id: sqlite3_column_int64(handle, 0), key: sqlite3_column_int64(handle, 1),
                        lat: sqlite3_column_double(handle, 2), lng: sqlite3_column_double(handle, 3),
                        reviewed: sqlite3_column_int64(handle, 4) > 0))
                code = sqlite3_step(handle)
            }
            guard code == SQLITE_DONE else { throw db.rawError(code) }
        }
        return members
    }

    /// Keeps the rows exact after a place was added, moved or deleted, or gained its first
    /// review or lost its last (`before`: the place as it was, `nil` for a new one), by the
    /// plans of `CellMaintenance`.
    func maintain(placeID: Int64, before: CellMember?) throws {
        for plan in CellMaintenance.plans(from: before, to: try member(id: placeID)) {
            let rows = try rows(plan.cellsToRead)
            try write(plan.update(rows: rows, members: try members(in: plan.ranges(given: rows))))
        }
    }

    /// A place as the cluster rows count it.
    func member(id: Int64) throws -> CellMember? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, cell, lat, lng, review_count FROM places WHERE id = ?"),
            arguments: [id]
        ).map { row in
            CellMember(id: row[0], key: row[1], lat: row[2], lng: row[3], reviewed: (row[4] as Int64) > 0)
        }
    }

    private func write(_ update: CellMaintenance.Update) throws {
        for id in update.delete {
            try db.execute(
                sql: "DELETE FROM place_cells WHERE level = ? AND cell = ?", arguments: [id.level, id.cell])
        }
        try insert(update.store, replacing: true)
    }

    private func insert(_ rows: [CellRow], replacing: Bool) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT \(replacing ? "OR REPLACE " : "")INTO place_cells (\(Self.columns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        for row in rows {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, Int64(row.level))
            sqlite3_bind_int64(handle, 2, row.cell)
            for (offset, summary) in [(3, row.all), (10, row.reviewed)] {
                let first = Int32(offset)
                sqlite3_bind_int64(handle, first, Int64(summary.count))
                for (index, value) in [
                    summary.sumLat, summary.sumLng, summary.minLat, summary.maxLat, summary.minLng, summary.maxLng,
                ].enumerated() {
                    sqlite3_bind_double(handle, first + 1 + Int32(index), value)
                }
            }
            let code = sqlite3_step(handle)
            guard code == SQLITE_DONE else { throw db.rawError(code, sql: statement.sql) }
        }
    }

    /// Builds every row anew from the places, in one pass over the cell index: after an import
    /// or a removed source, where many places changed at once.
    func rebuild() throws {
        var builder = CellRowBuilder()
        let statement = try db.makeStatement(
            sql: "SELECT cell, lat, lng, review_count FROM places INDEXED BY places_by_cell ORDER BY cell")
        let handle = statement.sqliteStatement
        var code = sqlite3_step(handle)
        while code == SQLITE_ROW {
            builder.add(
                key: sqlite3_column_int64(handle, 0), lat: sqlite3_column_double(handle, 1),
                lng: sqlite3_column_double(handle, 2), reviewed: sqlite3_column_int64(handle, 3) > 0)
            code = sqlite3_step(handle)
        }
        guard code == SQLITE_DONE else { throw db.rawError(code) }
        builder.finish()
        try db.execute(sql: "DELETE FROM place_cells")
        try insert(builder.rows, replacing: false)
    }
}

extension AppDatabase {
    /// Builds `place_cells` anew from the places (the benchmarks time it; an import or a removed
    /// source does it in its own transaction).
    public func rebuildPlaceCells() async throws {
        try await pool.write { db in try PlaceCellsTable(db).rebuild() }
    }
}
