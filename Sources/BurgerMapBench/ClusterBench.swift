import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import GRDB
import Logging

/// `clusters`: clustered map views in process on 1,000,000 places, half in the nearby
/// benchmark's dense 100 km square around Seoul and half spread over the world: the whole
/// world at zoom 2, a city at zoom 12, a street at zoom 17 (1280 × 800-pixel screens) and
/// random screens at random zooms; what it costs to build the cell rows anew. With `--engines`,
/// the PostgreSQL engine beside it (same places, same run), answers compared.
struct ClusterBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clusters", abstract: "Median time of a clustered map view, through the async store API.")

    @Option(help: "How many places (half dense, half world-wide).") var places = 1_000_000
    @Option(help: "Timed views per kind.") var repetitions = 15
    @Option(help: "Folder for the benchmark database (kept between runs).") var dataDir = "bench-data/clusters"
    @Flag(help: "Also on PostgreSQL (BURGERMAP_TEST_DATABASE_URL, as scripts/postgres sets it).") var engines = false
    @Option(help: "Only the views whose kind starts with this (world, city, street, random), for profiling.")
    var only: String?

    func run() async throws {
        let database = try await Self.openDatabase(places: places, dataDir: dataDir)
        guard engines else { return try await measure([("sqlite", database)], rebuild: [database.rebuildPlaceCells]) }
        try await withBenchPostgres(copying: database, count: places) { engine in
            try await measure(
                [("sqlite", database), ("postgres", engine.places)],
                rebuild: [database.rebuildPlaceCells, engine.places.rebuildPlaceCells])
        }
    }

    /// The dense half from the nearby benchmark's generator, the world half drawn here (seeded),
    /// each imported as `burgermap import` does (shared with the tile benchmark).
    static func openDatabase(places: Int, dataDir: String) async throws -> AppDatabase {
        let folder = URL(fileURLWithPath: dataDir).appendingPathComponent("places-\(places)")
        let database = try AppDatabase(dataDirectory: folder)
        let stored = try await database.benchmarkRead { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM places") ?? 0
        }
        guard stored != places else { return database }
        let dense = folder.appendingPathComponent("dense.csv")
        try GeneratePlaces.parse(["--count", "\(places / 2)", "--side-km", "100", "--output", dense.path]).run()
        var begin = DispatchTime.now().uptimeNanoseconds
        print("dense half: \(try PlaceImport(database: database).run(file: dense, source: "dense"))")
        print(String(format: "  imported in %.2f s", Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9))
        var random = BenchRandom(seed: 42)
        var text = "id,name,lat,lng\n"
        for index in 0..<(places - places / 2) {
            // Uniform on the sphere between ±80°.
            let lat = asin(random.uniform(-0.9848, 0.9848)) * 180 / .pi
            text += "w\(index),World #\(index),\(lat),\(random.uniform(-180, 180))\n"
        }
        let world = folder.appendingPathComponent("world.csv")
        try text.write(to: world, atomically: true, encoding: .utf8)
        begin = DispatchTime.now().uptimeNanoseconds
        print("world half: \(try PlaceImport(database: database).run(file: world, source: "world"))")
        print(String(format: "  imported in %.2f s", Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9))
        try? FileManager.default.removeItem(at: dense)
        try? FileManager.default.removeItem(at: world)
        return database
    }

    /// A 1280 × 800-pixel screen centred on a point at a zoom, as a box.
    static func screen(lat: Double, lng: Double, zoom: Int) -> ClusterQuery {
        let degreesPerPixel = 360 / (256 * pow(2, Double(zoom)))
        let halfWidth = min(180, 640 * degreesPerPixel)
        let halfHeight = min(85, 400 * degreesPerPixel * cos(lat * .pi / 180))
        var west = lng - halfWidth
        var east = lng + halfWidth
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        if halfWidth >= 180 { (west, east) = (-180, 180) }
        return ClusterQuery(
            west: west, south: max(-85, lat - halfHeight), east: east, north: min(85, lat + halfHeight), zoom: zoom)
    }

    private func measure(
        _ stores: [(name: String, store: any PlaceStore)], rebuild: [@Sendable () async throws -> Void]
    ) async throws {
        var random = BenchRandom(seed: 7)
        let kinds: [(String, () -> ClusterQuery)] = [
            ("world, zoom 2", { ClusterQuery(west: -180, south: -85, east: 180, north: 85, zoom: 2) }),
            ("city, zoom 12", { Self.screen(lat: 37.5665, lng: 126.978, zoom: 12) }),
            ("street, zoom 17", { Self.screen(lat: 37.5665, lng: 126.978, zoom: 17) }),
            (
                "random screens",
                {
                    let dense = random.uniform(0, 1) < 0.5
                    return Self.screen(
                        lat: dense ? 37.5665 + random.uniform(-0.4, 0.4) : random.uniform(-60, 60),
                        lng: dense ? 126.978 + random.uniform(-0.5, 0.5) : random.uniform(-180, 180),
                        zoom: Int(random.uniform(0, 20.99)))
                }
            ),
        ]
        print("places: \(places); \(repetitions) views per kind and engine, medians in ms (items, places counted)")
        var differing = 0
        for (name, make) in kinds where only.map({ name.hasPrefix($0) }) ?? true {
            var times = Array(repeating: [Double](), count: stores.count)
            var shape = ""
            for _ in 0..<repetitions {
                let query = make()
                var answers: [[Int]] = []
                for (index, entry) in stores.enumerated() {
                    let begin = DispatchTime.now().uptimeNanoseconds
                    let result = try await entry.store.clusters(query)
                    times[index].append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                    answers.append([result.items.count, result.count])
                    shape = "\(result.items.count) items, \(result.count) places"
                }
                if answers.contains(where: { $0 != answers[0] }) { differing += 1 }
            }
            var line = name.padding(toLength: 18, withPad: " ", startingAt: 0)
            for (index, entry) in stores.enumerated() {
                line += String(format: "  %@ %8.2f", entry.name, median(times[index]))
            }
            print(line + "   (last: \(shape))")
        }
        if stores.count > 1 { print("views whose counts differ between the engines: \(differing)") }
        guard only == nil else { return }
        try await timeCellIndexes(stores)
        for (index, build) in rebuild.enumerated() {
            let begin = DispatchTime.now().uptimeNanoseconds
            try await build()
            print(
                String(
                    format: "%@: building every cell row anew: %.2f s", stores[index].name,
                    Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9))
        }
    }
}

extension ClusterBench {
    /// What the cell indexes cost an import that builds them once (a first load): each dropped
    /// and built again from the table, timed, on each engine.
    func timeCellIndexes(_ stores: [(name: String, store: any PlaceStore)]) async throws {
        for entry in stores {
            let begin = DispatchTime.now().uptimeNanoseconds
            if let database = entry.store as? AppDatabase {
                try await database.benchmarkWrite { db in
                    for name in ["places_by_cell", "places_reviewed_by_cell"] {
                        let sql = try String.fetchOne(
                            db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [name])!
                        try db.execute(sql: "DROP INDEX \(name)")
                        try db.execute(sql: sql)
                    }
                }
            } else if let store = entry.store as? PostgresPlaceStore {
                try await store.rebuildCellIndexes()
            }
            print(
                String(
                    format: "%@: building the two cell indexes: %.2f s", entry.name,
                    Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9))
        }
    }
}

/// A seeded generator for the benchmark's world-wide places and views (SplitMix64).
struct BenchRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return low + (high - low) * Double(z >> 11) / Double(1 << 53)
    }
}
