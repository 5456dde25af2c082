import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import Logging

/// `search`: place search in process on the benchmark's places (generated names such as
/// "Double Stack #12" and addresses on "Burger Street"), for queries from 2 to 10 characters
/// that match nothing, a few places or much of the table, with and without a point; with
/// `--engines`, on the PostgreSQL engine beside it (same places, same run).
struct SearchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Median time of a place search page (20 results) per query, through the async store API.")

    @Option(help: "How many places in the area.") var places = 1_000_000
    @Option(help: "Side of the square area, in km.") var sideKm = 100.0
    @Option(help: "Timed searches per query and form.") var repetitions = 7
    @Option(help: "Folder for the benchmark database (kept between runs).") var dataDir = "bench-data/search"
    @Flag(help: "Also on PostgreSQL (BURGERMAP_TEST_DATABASE_URL, as scripts/postgres sets it).") var engines = false

    /// Queries as a user would type them, already folded: none, few and many matches.
    static let queries =
        [
            "bu", "zz", "#1", "burger", "stack", "street", "double st", "#12345", "joint #777", "melt #99999",
            "no such pl",
        ] + pairs

    /// Queries of two code points, which no trigram finds: common in names ("er"), in one
    /// name of 15 ("ck"), in about 4% of the names ("99"), in every address line and no name
    /// ("t,", "ci"), and found nowhere: Latin ("qx", "9#", `"q`) and CJK pairs ("버거", "東京").
    static let pairs = ["er", "t,", "ck", "ci", "99", "9#", "qx", "버거", "東京", "\"q"]

    func run() async throws {
        let database = try await openNearbyBenchDatabase(places: places, sideKm: sideKm, dataDir: dataDir)
        guard engines else { return try await measure([("sqlite", database)]) }
        try await withBenchPostgres(copying: database, count: places) { engine in
            try await measure([("sqlite", database), ("postgres", engine.places)])
        }
    }

    /// Each query's median per store and form, the stores taking turns query by query; the
    /// pages of the stores are compared (ids and distances).
    private func measure(_ stores: [(name: String, store: any PlaceStore)]) async throws {
        let point = (lat: 37.5665, lng: 126.978)
        print("places: \(places); \(repetitions) searches per query, form and engine, 20 per page, medians in ms")
        print(
            "query         "
                + stores.map { $0.name.padding(toLength: 9, withPad: " ", startingAt: 0) + " no point  with point" }
                .joined(separator: "   ") + "   page")
        var differing = 0
        for text in Self.queries {
            let forms = [
                SearchQuery(text: text, limit: 20), SearchQuery(text: text, lat: point.lat, lng: point.lng, limit: 20),
            ]
            var times = Array(repeating: [[Double]](repeating: [], count: forms.count), count: stores.count)
            var pages = Array(repeating: [[Int64]](repeating: [], count: forms.count), count: stores.count)
            for _ in 0..<repetitions {
                for (index, entry) in stores.enumerated() {
                    for (form, query) in forms.enumerated() {
                        let begin = DispatchTime.now().uptimeNanoseconds
                        let page = try await entry.store.searchPlaces(query)
                        times[index][form].append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                        pages[index][form] = page.items.map(\.place.id)
                    }
                }
            }
            differing += pages.dropFirst().filter { $0 != pages[0] }.count
            var line = "\"\(text)\"".padding(toLength: 14, withPad: " ", startingAt: 0)
            for index in stores.indices {
                line += String(format: "          %8.2f  %8.2f  ", median(times[index][0]), median(times[index][1]))
            }
            print(line + "   \(pages[0][0].count) / \(pages[0][1].count)")
        }
        if stores.count > 1 { print("queries whose pages differ between the engines: \(differing)") }
    }
}
