import ArgumentParser
import BurgerMapCore
import Foundation

extension OSMPlaceFilter: ExpressibleByArgument {}

/// `osm-read`: the OSM reader run to the end of an extract, as the importer would drive it, with
/// what it found and how long it took (scripts/bench-osm times it against osmium).
struct OSMReadBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "osm-read",
        abstract: "Read an OSM extract's places (.osm.pbf or .osm) to the end; print counts and time.")

    @Argument(help: "The extract.") var file: String
    @Option(help: "Which objects are places: burger or all-food.") var filter = OSMPlaceFilter.burger

    func run() throws {
        let start = DispatchTime.now().uptimeNanoseconds
        let seconds = { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        let reader = try OSMPlaceReader(path: file, filter: filter)
        var places: [String: Int] = [:]
        var named = 0
        var skipped = 0
        var firstItem: Double?
        var lastProgress: Int64 = 0
        while let item = try reader.next() {
            if firstItem == nil { firstItem = seconds() }
            precondition(reader.bytesRead >= lastProgress, "progress went back")
            lastProgress = reader.bytesRead
            switch item {
            case .place(let place):
                places[String(place.id.prefix { $0 != "/" }), default: 0] += 1
                if place.tags["name"] != nil { named += 1 }
            case .skip:
                skipped += 1
            }
        }
        let total = seconds()
        let kinds = ["node", "way", "relation"].map { "\(places[$0, default: 0]) \($0)s" }.joined(separator: ", ")
        print("places: \(places.values.reduce(0, +)) (\(kinds); \(named) named), skipped: \(skipped)")
        print(
            String(
                format: "read in %.2f s (first item after %.2f s), progress %lld of %lld bytes", total,
                firstItem ?? total,
                reader.bytesRead, reader.size ?? 0))
    }
}
