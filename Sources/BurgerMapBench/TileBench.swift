import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import GRDB
import Logging

/// `tiles`: a vector tile not yet cached, in process, on the cluster benchmark's 1,000,000
/// places: the store's read (`PlaceStore.tile`) and the MVT encoding, as the tile route pays
/// them on a cache miss, at zooms 0…20, over the tiles under random places (seeded). With
/// `--engines`, the PostgreSQL engine and PostGIS's own `ST_AsMVT` of the same tiles beside it
/// (same server, same run, alternating tile by tile), features compared.
struct TileBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Median time of a vector tile not yet cached: the store's read plus the MVT encoding.")

    @Option(help: "How many places (half dense, half world-wide: the cluster benchmark's).") var places = 1_000_000
    @Option(help: "Tiles per zoom, each the one under a random place.") var tiles = 41
    @Option(help: "Zooms, comma-separated.") var zooms = "0,2,4,6,8,10,12,14,16,18,20"
    @Option(help: "Folder of the cluster benchmark's database (kept between runs).") var dataDir = "bench-data/clusters"
    @Flag(help: "Also PostgreSQL and PostGIS's ST_AsMVT (BURGERMAP_TEST_DATABASE_URL, as scripts/postgres sets it).")
    var engines = false
    @Option(
        help:
            "Only these contenders (sqlite, postgres, postgis, postgis-cells, select-1; comma-separated), for profiling."
    )
    var only: String?
    @Option(help: "How many times each zoom's tiles are measured (more for a profile).") var rounds = 1
    @Flag(help: "Print PostgreSQL's plans of the PostGIS statements for the first tile of zooms 0 and 14.")
    var explain = false

    func run() async throws {
        let database = try await ClusterBench.openDatabase(places: places, dataDir: dataDir)
        let store: any PlaceStore = database
        let sqlite = TileContender(name: "sqlite") { address in
            let content = try await store.tile(TileQuery(address))
            return TileOutput(bytes: content.vectorTile, count: content.count)
        }
        guard engines else { return try await measure(database, [sqlite]) }
        try await withBenchPostgres(copying: database, count: places) { engine in
            let postgres: any PlaceStore = engine.places
            let baseline = PostGISTiles(pool: engine.pool)
            try await measure(
                database,
                [
                    sqlite,
                    TileContender(name: "postgres") { address in
                        let content = try await postgres.tile(TileQuery(address))
                        return TileOutput(bytes: content.vectorTile, count: content.count)
                    },
                    TileContender(name: "postgis") { TileOutput(bytes: try await baseline.plain(address: $0)) },
                    TileContender(name: "postgis-cells") {
                        TileOutput(bytes: try await baseline.withCells(address: $0))
                    },
                    // What one statement costs the client before any work: the floor of each
                    // statement that a tile's read takes.
                    TileContender(name: "select-1", checked: false) { _ in
                        try await baseline.selectOne()
                        return TileOutput(bytes: [])
                    },
                ])
            if explain {
                let tiles = try await Self.randomTiles(database, zooms: [0, 14], count: 1)
                try await baseline.explain(tiles[0]![0], tiles[14]![0])
            }
        }
    }

    private func measure(_ database: AppDatabase, _ all: [TileContender]) async throws {
        let chosen = only.map { Set($0.split(separator: ",").map(String.init)) }
        let contenders = all.filter { chosen?.contains($0.name) ?? true }
        let zoomList = zooms.split(separator: ",").compactMap { Int($0) }
        let addresses = try await Self.randomTiles(database, zooms: zoomList, count: tiles)
        // Each contender once per zoom first: statements prepared, pages read into memory.
        for z in zoomList {
            for contender in contenders { _ = try await contender.build(addresses[z]![0]) }
        }
        print(
            "places: \(places); \(tiles) tiles per zoom under random places (seeded), each built by every contender "
                + "in turn (the first one rotating); \(rounds) round(s); ms: median (p90)")
        // Ours on PostgreSQL against each PostGIS form, when both were measured.
        let names = contenders.map(\.name)
        let ratios = ["postgis", "postgis-cells"].compactMap { baseline -> (String, Int, Int)? in
            guard let ours = names.firstIndex(of: "postgres"), let other = names.firstIndex(of: baseline) else {
                return nil
            }
            return ("postgres/\(baseline)", ours, other)
        }
        var header = "zoom  places/tile"
        for name in names { header += name.leftPadding(22) }
        for (title, _, _) in ratios { header += title.leftPadding(24) }
        print(header)
        var mismatches: [String] = []
        for z in zoomList {
            var times = Array(repeating: [Double](), count: contenders.count)
            var placesInTiles: [Int] = []
            var bytes = Array(repeating: 0, count: contenders.count)
            for round in 0..<rounds {
                for (index, address) in addresses[z]!.enumerated() {
                    var outputs = Array(repeating: TileOutput(bytes: [], count: nil), count: contenders.count)
                    for turn in 0..<contenders.count {
                        let which = (index + turn) % contenders.count
                        let begin = DispatchTime.now().uptimeNanoseconds
                        outputs[which] = try await contenders[which].build(address)
                        times[which].append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                    }
                    guard round == 0 else { continue }
                    let truth = try await Self.placeCount(database, in: address)
                    placesInTiles.append(truth)
                    let features = outputs.map { MVTFeatures.count($0.bytes) }
                    for (which, output) in outputs.enumerated() {
                        bytes[which] += output.bytes.count
                        let name = contenders[which].name
                        if let count = output.count, count != truth {
                            mismatches.append("\(address) \(name): \(count) places, \(truth) stored")
                        }
                        if contenders[which].checked, features[which] != features[0] {
                            mismatches.append(
                                "\(address) \(name): features \(features[which]), \(contenders[0].name) \(features[0])")
                        }
                    }
                }
            }
            var line =
                String(z).leftPadding(4) + String(placesInTiles.sorted()[placesInTiles.count / 2]).leftPadding(13)
            for which in contenders.indices {
                line += String(format: "%10.2f (%6.2f)", median(times[which]), percentile(times[which], 0.9))
                    .leftPadding(22)
            }
            for (_, ours, other) in ratios {
                line += String(format: "%24.3f", median(times[ours]) / median(times[other]))
            }
            let sizes = bytes.map { String($0 / max(1, addresses[z]!.count)) }.joined(separator: " / ")
            print(line + "   (bytes: \(sizes); places/tile: median)")
        }
        print("tiles whose place count or features differ: \(mismatches.count)")
        for mismatch in mismatches.prefix(10) { print("  \(mismatch)") }
    }

    /// The tiles under `count` random places at each zoom (seeded; ids drawn uniformly between
    /// the lowest and the highest, the next stored id taken).
    static func randomTiles(_ database: AppDatabase, zooms: [Int], count: Int) async throws -> [Int: [TileAddress]] {
        try await database.benchmarkRead { db in
            let low = try Int64.fetchOne(db, sql: "SELECT min(id) FROM places") ?? 1
            let high = try Int64.fetchOne(db, sql: "SELECT max(id) FROM places") ?? 1
            var random = BenchRandom(seed: 2026)
            var tiles: [Int: [TileAddress]] = [:]
            for z in zooms {
                for _ in 0..<count {
                    let id = low + Int64(random.uniform(0, Double(high - low + 1)))
                    let key = try Int64.fetchOne(
                        db, sql: "SELECT cell FROM places WHERE id >= ? ORDER BY id LIMIT 1", arguments: [id])!
                    tiles[z, default: []].append(.holding(key: key, at: z))
                }
            }
            return tiles
        }
    }

    /// How many places the tile holds, counted from the key index (untimed: the check).
    static func placeCount(_ database: AppDatabase, in address: TileAddress) async throws -> Int {
        let range = PlaceCells.range(of: address.cell.cell, at: address.z)
        return try await database.benchmarkRead { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM places WHERE cell BETWEEN ? AND ?",
                arguments: [range.lowerBound, range.upperBound]) ?? 0
        }
    }
}

/// What one contender answers for a tile: its MVT bytes and, for ours, the places it counted.
struct TileOutput: Sendable {
    var bytes: [UInt8]
    var count: Int?
}

/// One way of building a tile, timed as a whole.
struct TileContender: Sendable {
    let name: String
    /// Whether its features are compared with the first contender's.
    var checked = true
    let build: @Sendable (TileAddress) async throws -> TileOutput
}

extension String {
    fileprivate func leftPadding(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
