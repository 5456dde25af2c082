import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import GRDB
import Logging
import PostgresNIO

/// Runs `body` on the PostgreSQL engine of scripts/postgres (`BURGERMAP_TEST_DATABASE_URL`),
/// logging warnings only, with the SQLite benchmark's `count` places copied in.
func withBenchPostgres(
    copying database: AppDatabase, count: Int, _ body: @Sendable (PostgresEngine) async throws -> Void
) async throws {
    guard let url = ProcessInfo.processInfo.environment["BURGERMAP_TEST_DATABASE_URL"] else {
        throw ValidationError("no PostgreSQL URL: run through scripts/postgres")
    }
    var quiet = Logger(label: "burgermap-bench")
    quiet.logLevel = .warning
    let logger = quiet
    try await PostgresEngine.withEngine(url: try PostgresDatabaseURL(url), logger: logger) { engine in
        try await copyBenchPlaces(from: database, into: engine, count: count, logger: logger)
        try await body(engine)
    }
}

/// Copies the SQLite benchmark places (ids, names, positions, address parts and the folded
/// search columns) into PostgreSQL unless it has them, so that both engines hold the same rows.
func copyBenchPlaces(from database: AppDatabase, into engine: PostgresEngine, count: Int, logger: Logger) async throws {
    let stored = try await engine.pool.query("SELECT count(*) FROM places", logger: logger)
    for try await stored in stored.decode(Int64.self) where stored == count { return }
    let columns = [
        "id", "name", "lat", "lng", "address", "city", "country", "created_at", "search_name", "search_address", "cell",
    ]
    let rows = try await database.benchmarkRead { db in
        try Row.fetchAll(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM places ORDER BY id").map { row in
            // Generated text has no tab, newline or backslash: COPY's text format as is.
            (0..<columns.count).map { index -> String in
                switch (row[index] as DatabaseValue).storage {
                case .null: "\\N"
                case .int64(let value): "\(value)"
                // Swift's shortest form reads back as the same double.
                case .double(let value): "\(value)"
                case .string(let value): value
                case .blob: "\\N"
                }
            }
        }
    }
    let begin = DispatchTime.now().uptimeNanoseconds
    try await engine.pool.withConnection { connection in
        try await connection.query("TRUNCATE places CASCADE", logger: logger)
        try await connection.copyFrom(table: "places", columns: columns + ["updated_at"], logger: logger) { writer in
            var buffer = ByteBuffer()
            for row in rows {
                buffer.writeString(row.joined(separator: "\t") + "\t" + row[7] + "\n")
                if buffer.readableBytes > 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            try await writer.write(buffer)
        }
        try await connection.query(
            "SELECT setval(pg_get_serial_sequence('places', 'id'), (SELECT max(id) FROM places))", logger: logger)
        try await connection.query("ANALYZE places", logger: logger)
    }
    try await engine.places.rebuildPlaceCells()
    try await engine.pool.withConnection { connection in
        try await PostgresSearchPairs(connection: connection, logger: logger).rebuild()
        for table in ["places", "place_cells", "place_search_pairs"] {
            try await vacuumUntilAllVisible(table, on: connection, logger: logger)
        }
    }
    print(
        String(
            format: "loaded %d places into PostgreSQL (COPY, indexes maintained): %.1f s", rows.count,
            Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9))
}

/// VACUUMs `table` until every page is marked all-visible, as autovacuum leaves a table a while
/// after a load, so that index-only scans read no heap. A VACUUM that runs while autovacuum's
/// own ANALYZE of the new rows holds a snapshot marks no page (seen: the feed's window then read
/// the heap for every review, 5 ms a page instead of 2; a city's clustered view 4 ms of member
/// reads instead of 1).
func vacuumUntilAllVisible(_ table: String, on connection: PostgresConnection, logger: Logger) async throws {
    for _ in 0..<10 {
        try await connection.query("VACUUM \(unescaped: table)", logger: logger)
        let pages = try await connection.query(
            "SELECT relallvisible >= relpages FROM pg_class WHERE relname = \(table)", logger: logger)
        var done = false
        for try await allVisible in pages.decode(Bool.self) { done = allVisible }
        if done { return }
        try await Task.sleep(for: .seconds(1))
    }
}
