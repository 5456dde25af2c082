import ArgumentParser
import BurgerMap
import BurgerMapSQLite
import Foundation

/// `search`: place search in process on the benchmark's places (generated names such as
/// "Double Stack #12" and addresses on "Burger Street"), for queries from 2 to 10 characters
/// that match nothing, a few places or nearly all of them, with and without a point.
struct SearchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Median time of a place search page (20 results) per query, through the async store API.")

    @Option(help: "How many places in the area.") var places = 1_000_000
    @Option(help: "Side of the square area, in km.") var sideKm = 100.0
    @Option(help: "Timed searches per query and form.") var repetitions = 7
    @Option(help: "Folder for the benchmark database (kept between runs).") var dataDir = "bench-data/search"

    /// Queries as a user would type them, already folded: none, few and many matches.
    static let queries = [
        "bu", "zz", "#1", "burger", "stack", "street", "double st", "#12345", "joint #777", "melt #99999",
        "no such pl",
    ]

    func run() async throws {
        let database = try await openNearbyBenchDatabase(places: places, sideKm: sideKm, dataDir: dataDir)
        let point = (lat: 37.5665, lng: 126.978)
        print("places: \(places); \(repetitions) searches per query and form, 20 per page, medians")
        print("query         matches on page   no point      with point (37.5665, 126.978)")
        for text in Self.queries {
            var times: [[Double]] = [[], []]
            var found = 0
            for _ in 0..<repetitions {
                for (form, query) in [
                    SearchQuery(text: text, limit: 20),
                    SearchQuery(text: text, lat: point.lat, lng: point.lng, limit: 20),
                ].enumerated() {
                    let begin = DispatchTime.now().uptimeNanoseconds
                    let page = try await database.searchPlaces(query)
                    times[form].append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                    found = page.items.count
                }
            }
            let label = "\"\(text)\"".padding(toLength: 14, withPad: " ", startingAt: 0)
            print(label + String(format: " %15d   %8.2f ms   %8.2f ms", found, median(times[0]), median(times[1])))
        }
    }
}
