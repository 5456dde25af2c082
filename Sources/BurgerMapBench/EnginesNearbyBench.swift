import ArgumentParser
import BurgerMap
import BurgerMapCore
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
            try await copyBenchPlaces(from: database, into: engine, count: places, logger: logger)
            var generator = SeededGenerator(seed: 7)
            let points = (0..<queries).map { _ in area.randomPoint(using: &generator) }
            var times: [String: [Double]] = ["sqlite": [], "postgres": []]
            var agreements = 0
            // Every point once untimed on each engine first, as `nearby` does for the store: the
            // SQLite store reads on connections of its own whose page caches start empty (timed
            // cold, 114 µs against 82 µs warm), while PostgreSQL's shared buffers are already warm
            // from the copy.
            for store in [database as any PlaceStore, engine.places] {
                for point in points {
                    _ = try await store.nearbyPlaces(
                        NearbyQuery(lat: point.lat, lng: point.lng, radiusM: radius, limit: limit))
                }
            }
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
}
