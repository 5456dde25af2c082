import ArgumentParser
import BurgerMap
import BurgerMapCore
import Foundation

/// `burgermap-bench`: the measurements behind docs/performance.md (and its record, docs/performance/), and the
/// deterministic place generator that feeds them (and `data/`).
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "burgermap-bench",
        abstract: "Benchmarks and test-data generation for BurgerMap.",
        subcommands: [
            GeneratePlaces.self, NearbyBench.self, EnginesNearbyBench.self, PhotoBench.self, SamplePhoto.self,
            FeedBench.self, PostgresRoundTripBench.self, SearchBench.self, ClusterBench.self, BareRouteServer.self,
            NotificationBench.self, TileBench.self, ReplicaNearbyBench.self, OSMReadBench.self, NearbyPostGISBench.self,
            MemoryLatencyProbe.self,
        ])
}

/// The square area the benchmark places fill: `sideKm` wide, centred on a point.
struct BenchArea {
    var centerLat: Double
    var centerLng: Double
    var sideKm: Double

    var latSpan: Double { sideKm / 111.195 }
    var lngSpan: Double { latSpan / cos(centerLat * .pi / 180) }

    func randomPoint(using generator: inout SeededGenerator) -> (lat: Double, lng: Double) {
        (
            centerLat + Double.random(in: -0.5...0.5, using: &generator) * latSpan,
            centerLng + Double.random(in: -0.5...0.5, using: &generator) * lngSpan
        )
    }
}

/// `generate`: writes a CSV of places with the contract's column names.
struct GeneratePlaces: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate", abstract: "Write a deterministic CSV of burger places.")

    @Option(help: "How many places.") var count = 1000
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(help: "Centre latitude.") var lat = 37.5665
    @Option(help: "Centre longitude.") var lng = 126.9780
    @Option(help: "Side of the square area, in km.") var sideKm = 100.0
    @Option(help: "Output file.") var output: String

    static let names = [
        "Burger Lab", "Patty House", "Grill & Bun", "Smash Stop", "Double Stack", "Brioche Burger",
        "Cheese Melt", "Onion Ring Diner", "Flame Burger", "Kimchi Burger Bar", "Wasabi Burger",
        "Bulgogi Bun", "The Burger Joint", "Bacon Tower", "Street Burger",
    ]
    static let categories = ["burger", "burger", "burger", "diner", "fast_food", "pub"]

    func run() throws {
        guard FileManager.default.createFile(atPath: output, contents: nil),
            let handle = FileHandle(forWritingAtPath: output)
        else { throw ValidationError("cannot write \(output)") }
        defer { try? handle.close() }
        var generator = SeededGenerator(seed: seed)
        let area = BenchArea(centerLat: lat, centerLng: lng, sideKm: sideKm)
        var buffer = "id,name,latitude,longitude,address,city,country,phone,category\n"
        for index in 1...max(1, count) {
            let point = area.randomPoint(using: &generator)
            let name = Self.names[Int.random(in: 0..<Self.names.count, using: &generator)]
            let category = Self.categories[Int.random(in: 0..<Self.categories.count, using: &generator)]
            let street = Int.random(in: 1...999, using: &generator)
            buffer += "gen-\(seed)-\(index),\"\(name) #\(index)\","
            buffer += String(format: "%.6f,%.6f", point.lat, point.lng)
            buffer += ",\"\(street) Burger Street, Unit \(index % 40)\",Sample City,KR,"
            buffer += "+82-2-\(1000 + index % 9000)-\(1000 + street),\(category)\n"
            if buffer.utf8.count > 1 << 20 {
                handle.write(Data(buffer.utf8))
                buffer = ""
            }
        }
        handle.write(Data(buffer.utf8))
    }
}
