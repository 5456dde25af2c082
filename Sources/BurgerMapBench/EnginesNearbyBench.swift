import ArgumentParser
import BurgerMap
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import GRDB
import Logging
import PostgresNIO

/// `nearby-engines`: the same nearby searches on the SQLite and the PostgreSQL engine, same
/// places (copied from the SQLite benchmark database with their ids), same run.
struct EnginesNearbyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearby-engines",
        abstract: "Median time of a 20-nearest query within 2 km through each engine's PlaceStore, side by side.")

    @Option(help: "How many places in the area.") var places = 1_000_000
    @Option(help: "Side of the square area, in km.") var sideKm = 100.0
    @Option(help: "How many queries per engine.") var queries = 1000
    @Option(help: "Radius of each query, in metres.") var radius = 2000.0
    @Option(help: "Results per query.") var limit = 20
    @Option(help: "Folder for the SQLite benchmark database (kept between runs).") var dataDir = "bench-data/nearby"
    @Option(help: "PostgreSQL URL (default: BURGERMAP_TEST_DATABASE_URL, as scripts/postgres sets it).")
    var databaseURL: String?
    @Option(help: "Queries of one engine before the other takes its turn.") var block = 50

    func run() async throws {
        let area = BenchArea(centerLat: 37.5665, centerLng: 126.9780, sideKm: sideKm)
        let database = try await openNearbyBenchDatabase(places: places, sideKm: sideKm, dataDir: dataDir)
        guard let text = databaseURL ?? ProcessInfo.processInfo.environment["BURGERMAP_TEST_DATABASE_URL"] else {
            throw ValidationError(
                "no PostgreSQL URL: pass --database-url or run through scripts/bench-nearby --engines")
        }
        var quiet = Logger(label: "burgermap-bench")
        quiet.logLevel = .warning
        let logger = quiet
        try await PostgresEngine.withEngine(url: try PostgresDatabaseURL(text), logger: logger) { engine in
            try await load(from: database, into: engine, logger: logger)
            var generator = SeededGenerator(seed: 7)
            let points = (0..<queries).map { _ in area.randomPoint(using: &generator) }
            var times: [String: [Double]] = ["sqlite": [], "postgres": []]
            var agreements = 0
            // Blocks of `block` queries each, alternating, over the same points.
            for start in stride(from: 0, to: points.count, by: block) {
                let blockPoints = points[start..<min(points.count, start + block)]
                var answers: [String: [[UInt64]]] = [:]
                for (name, store) in [("sqlite", database as any PlaceStore), ("postgres", engine.places)] {
                    for point in blockPoints {
                        let query = NearbyQuery(lat: point.lat, lng: point.lng, radiusM: radius, limit: limit)
                        let begin = DispatchTime.now().uptimeNanoseconds
                        let page = try await store.nearbyPlaces(query)
                        times[name]!.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1000)
                        // Ids and distances, to the bit.
                        answers[name, default: []].append(
                            page.items.flatMap { [UInt64($0.place.id), $0.distanceM.bitPattern] })
                    }
                }
                agreements += zip(answers["sqlite"]!, answers["postgres"]!).filter { $0 == $1 }.count
            }
            print(
                "places: \(places) in \(Int(sideKm)) km x \(Int(sideKm)) km, \(queries) queries per engine, "
                    + "\(limit) nearest within \(Int(radius)) m, through each engine's async PlaceStore")
            for name in ["sqlite", "postgres"] {
                print(
                    String(
                        format: "%-9@ median %8.1f us  p90 %8.1f us  p99 %8.1f us", name, median(times[name]!),
                        percentile(times[name]!, 0.9), percentile(times[name]!, 0.99)))
            }
            print("identical pages (ids and distances to the bit): \(agreements) of \(points.count)")
        }
    }

    /// Copies the SQLite places (ids, names, positions) into PostgreSQL unless it has them.
    private func load(from database: AppDatabase, into engine: PostgresEngine, logger: Logger) async throws {
        let stored = try await engine.client.query("SELECT count(*) FROM places")
        for try await count in stored.decode(Int64.self) where count == places { return }
        let rows = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, lat, lng, created_at FROM places ORDER BY id").map {
                (
                    id: $0[0] as Int64, name: $0[1] as String, lat: $0[2] as Double, lng: $0[3] as Double,
                    at: $0[4] as Int64
                )
            }
        }
        let begin = DispatchTime.now().uptimeNanoseconds
        try await engine.client.withConnection { connection in
            try await connection.query("TRUNCATE places CASCADE", logger: logger)
            try await connection.copyFrom(
                table: "places", columns: ["id", "name", "lat", "lng", "created_at", "updated_at"], logger: logger
            ) { writer in
                var buffer = ByteBuffer()
                for row in rows {
                    // Generated names have no tab, newline or backslash: COPY's text format as is.
                    buffer.writeString("\(row.id)\t\(row.name)\t\(row.lat)\t\(row.lng)\t\(row.at)\t\(row.at)\n")
                    if buffer.readableBytes > 1 << 20 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                try await writer.write(buffer)
            }
            try await connection.query(
                "SELECT setval(pg_get_serial_sequence('places', 'id'), (SELECT max(id) FROM places))", logger: logger)
            try await connection.query("VACUUM ANALYZE places", logger: logger)
        }
        print(
            String(
                format: "loaded %d places into PostgreSQL (COPY, GiST indexes maintained): %.1f s", rows.count,
                Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9))
    }
}
