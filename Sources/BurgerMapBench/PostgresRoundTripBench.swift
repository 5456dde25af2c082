import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import Foundation
import Logging
import PostgresNIO

/// `postgres-round-trip`: where a PostgreSQL nearby query's time goes on the client side: an
/// empty statement through the pool, the same on one held connection, and the nearby search
/// through the engine's store, alternating in blocks over the same run.
struct PostgresRoundTripBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres-round-trip",
        abstract: "Median client time of SELECT 1 (pool, held connection) beside a nearby search.")

    @Option(help: "How many of each.") var queries = 1000
    @Option(help: "Folder for the SQLite benchmark database (kept between runs).") var dataDir = "bench-data/nearby"
    @Option(help: "PostgreSQL URL (default: BURGERMAP_TEST_DATABASE_URL).") var databaseURL: String?
    @Flag(help: "Only the nearby searches (for a profiler).") var nearbyOnly = false

    func run() async throws {
        guard let text = databaseURL ?? ProcessInfo.processInfo.environment["BURGERMAP_TEST_DATABASE_URL"] else {
            throw ValidationError("no PostgreSQL URL")
        }
        var quiet = Logger(label: "burgermap-bench")
        quiet.logLevel = .warning
        let logger = quiet
        let area = BenchArea(centerLat: 37.5665, centerLng: 126.9780, sideKm: 100)
        try await PostgresEngine.withEngine(url: try PostgresDatabaseURL(text), logger: logger) { engine in
            var generator = SeededGenerator(seed: 7)
            let points = (0..<queries).map { _ in area.randomPoint(using: &generator) }
            var times: [String: [Double]] = [:]
            func timed(_ name: String, _ body: () async throws -> Void) async rethrows {
                let begin = DispatchTime.now().uptimeNanoseconds
                try await body()
                times[name, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1000)
            }
            for start in stride(from: 0, to: points.count, by: 50) {
                let block = points[start..<min(points.count, start + 50)]
                for _ in block where !nearbyOnly {
                    try await timed("pool SELECT 1") {
                        for try await _ in try await engine.pool.query("SELECT 1", logger: logger) {}
                    }
                }
                let held = try await engine.pool.withConnection { connection in
                    var held: [Double] = []
                    for _ in block where !nearbyOnly {
                        let begin = DispatchTime.now().uptimeNanoseconds
                        for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                        held.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1000)
                    }
                    return held
                }
                times["held SELECT 1", default: []] += held
                for point in block {
                    try await timed("nearby store") {
                        _ = try await engine.places.nearbyPlaces(
                            NearbyQuery(lat: point.lat, lng: point.lng, radiusM: 2000, limit: 20))
                    }
                }
            }
            for (name, values) in times.sorted(by: { $0.key < $1.key }) {
                print(
                    String(format: "%-14@ median %8.1f us  p90 %8.1f us", name, median(values), percentile(values, 0.9))
                )
            }
        }
    }
}
