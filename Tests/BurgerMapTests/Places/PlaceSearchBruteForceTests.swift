import BurgerMap
import BurgerMapCore
import CGeoIndex
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// Search against a brute-force substring scan of every seeded place, on both engines.
@Suite("Place search equals a brute-force scan")
struct PlaceSearchBruteForceTests {
    /// Pieces of names: Korean, Japanese, Latin with accents and case, and syntax characters.
    static let pieces = [
        "버거", "수제", "하우스", "강남", "バーガー", "ﾊﾞｰｶﾞｰ", "東京", "カフェ", "Café", "CAFE", "Burger", "burg", "Grill",
        "Ñandú", "Straße", "Ōsaka", "50%", "a_b", "\"q\"", "x*", "NEAR", "\\", " ", "-", "Zürich", "ÉCOLE", "Smash",
    ]

    /// Places with names and addresses built from `pieces`, around two centres, and random
    /// review counts (ties included).
    static func seed(_ environment: TestEnvironment) async throws -> [(place: Place, reviews: Int)] {
        var random = SeededGenerator(seed: 31)
        var drafts: [PlaceDraft] = []
        for index in 0..<160 {
            let parts = (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            let name = parts.joined(separator: Bool.random(using: &random) ? "" : " ")
                .trimmingCharacters(in: .whitespaces)
            let address =
                index % 3 == 0 ? "\(index) " + pieces.randomElement(using: &random)! + " Rd" : nil
            let centre = index % 2 == 0 ? (37.5, 127.0) : (35.68, 139.7)
            // Every fourth place has names in other languages, found by search as well.
            var names: [String: String] = [:]
            if index % 4 == 1 {
                for language in ["ko", "ja"] where Bool.random(using: &random) {
                    names[language] =
                        pieces.randomElement(using: &random)! + " " + pieces.randomElement(using: &random)!
                }
            }
            drafts.append(
                PlaceDraft(
                    name: name.isEmpty ? "Place \(index)" : name,
                    lat: centre.0 + Double.random(in: -0.2...0.2, using: &random),
                    lng: centre.1 + Double.random(in: -0.2...0.2, using: &random), address: address,
                    city: index % 5 == 0 ? "Seoul" : nil, names: names))
        }
        // Two places at one spot with one name: the tie-break on id.
        drafts.append(PlaceDraft(name: "Twin Burger", lat: 37.5, lng: 127.0))
        drafts.append(PlaceDraft(name: "Twin Burger", lat: 37.5, lng: 127.0))
        // Names and an address line of two code points, whole: no trigram of their own.
        drafts.append(PlaceDraft(name: "Qz", lat: 37.51, lng: 127.01, address: "Wy"))
        drafts.append(PlaceDraft(name: "京都", lat: 35.7, lng: 139.7, names: ["en": "Kx"]))
        let places = try await environment.insert(drafts)
        var seeded: [(place: Place, reviews: Int)] = []
        for place in places {
            let reviews = Int.random(in: 0...3, using: &random)
            if reviews > 0 { try await environment.setReviewCount(place.id, reviews) }
            seeded.append((place, reviews))
        }
        return seeded
    }

    @Test(
        "all pages of random queries equal the brute-force ranking, with and without a point",
        arguments: StoreEngine.available)
    func pagesEqualBruteForce(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await Self.seed(environment)
        var random = SeededGenerator(seed: 77)
        // Substrings of stored names (2 to 6 characters) and whole pieces, in other cases and widths.
        var queries = [
            "버거", "bu", "BURGER", "cafe", "ｂｕｒｇ", "ﾊﾞｰ", "バー", "ZURICH", "ñandu", "strasse", "twin burger", "rd",
            "seoul",
            // Two code points: at the end of a name, an address line or another name, a whole
            // name, CJK, FTS and LIKE syntax, in an address line only, and nowhere.
            "rg", "sh", "ul", "qz", "wy", "kx", "京都", "東京", "\"q", "q\"", "0%", "_b", "x*", "\\b", "ße", "zz",
        ]
        for _ in 0..<40 {
            let name = Array(places.randomElement(using: &random)!.place.name)
            guard name.count >= 2 else { continue }
            let length = Int.random(in: 2...min(6, name.count), using: &random)
            let start = Int.random(in: 0...(name.count - length), using: &random)
            let piece = String(name[start..<(start + length)])
            queries.append(Bool.random(using: &random) ? piece.uppercased() : piece)
        }
        let allQueries = queries
        let found = try await environment.withClientReturning(logger: Logger(label: "burgermap-tests")) { client in
            var found = 0
            for (round, q) in allQueries.enumerated() {
                let trimmed = q.trimmingCharacters(in: .whitespacesAndNewlines)
                let folded = SearchText.fold(trimmed)
                guard trimmed.unicodeScalars.count >= 2, folded.unicodeScalars.count >= 2,
                    SearchText.hasSearchableCharacter(folded)
                else { continue }
                let limit = String([1, 3, 7, 50][round % 4])
                let plain = try await client.searchAll(["q": q, "limit": limit])
                #expect(plain.hits == bruteForceSearch(places, q: q), "q=\(q)")
                found += plain.hits.count
                let lat = round % 2 == 0 ? 37.45 : 35.7
                let lng = round % 2 == 0 ? 127.05 : 139.65
                let radius = round % 3 == 0 ? "15000" : nil
                var parameters = ["q": q, "limit": limit, "lat": "\(lat)", "lng": "\(lng)"]
                parameters["radius_m"] = radius
                let near = try await client.searchAll(parameters)
                let expected = bruteForceSearch(places, q: q, lat: lat, lng: lng, radius: radius.flatMap { Double($0) })
                #expect(near.hits == expected, "q=\(q) near \(lat),\(lng) r=\(radius ?? "-")")
            }
            return found
        }
        // The queries are not all misses: most come from stored names.
        #expect(found > 300)
    }

    @Test("the store answers the contract distance to the bit", arguments: StoreEngine.available)
    func exactDistances(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await Self.seed(environment)
        let page = try await environment.stores.places.searchPlaces(
            SearchQuery(text: "burg", lat: 37.45, lng: 127.05, limit: 50))
        #expect(!page.items.isEmpty)
        let byID = Dictionary(uniqueKeysWithValues: places.map { ($0.place.id, $0.place) })
        for item in page.items {
            let place = try #require(byID[item.place.id])
            #expect(item.distanceM == bm_haversine_m(37.45, 127.05, place.lat, place.lng))
            #expect(item.place == place || item.place.reviewCount > 0)
        }
    }
}

/// The ranks that `TieredSearch` walks instead of ranking whole (those with more places than
/// its cap), against the same brute force: with a cap of 0 every rank is walked, with 4 some.
@Suite("Place search walks equal a brute-force scan")
struct PlaceSearchWalkTests {
    static func tiers(_ environment: TestEnvironment) -> any SearchTierSource {
        if let postgres = environment.postgres {
            return PostgresSearchTiers(pool: postgres.pool, logger: Logger(label: "burgermap-tests"))
        }
        return SearchTiers(database: environment.database)
    }

    /// Every page of `query`, `limit` at a time, through `TieredSearch` with `cap`.
    static func allPages(
        _ query: SearchQuery, cap: Int, _ source: any SearchTierSource
    ) async throws -> [SearchHit] {
        var hits: [SearchHit] = []
        var query = query
        for _ in 0..<500 {
            let page = try await TieredSearch.page(query, from: source, matchCap: cap)
            hits += page.items.map {
                SearchHit(id: $0.place.id, distanceM: $0.distanceM.map { ($0 * 1000).rounded() / 1000 })
            }
            guard page.hasMore, let last = page.items.last else { return hits }
            query.after = last.key
        }
        Issue.record("more than 500 pages")
        return hits
    }

    @Test("pages of walked ranks equal the brute-force ranking", arguments: StoreEngine.available)
    func walksEqualBruteForce(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await PlaceSearchBruteForceTests.seed(environment)
        let source = Self.tiers(environment)
        // Two-code-point queries (scanned) and longer ones (trigram indexes), names and addresses.
        let queries = ["버거", "bu", "burger", "cafe", "バーガー", "twin burger", "rd", "seoul", "grill", "smash"]
        var compared = 0
        for (round, q) in queries.enumerated() {
            let text = SearchText.fold(q)
            for cap in [0, 4] {
                let limit = [1, 3, 7][(round + cap) % 3]
                let plain = try await Self.allPages(SearchQuery(text: text, limit: limit), cap: cap, source)
                #expect(plain == bruteForceSearch(places, q: q), "q=\(q) cap=\(cap)")
                let (lat, lng) = round % 2 == 0 ? (37.45, 127.05) : (35.7, 139.65)
                let radius: Double? = round % 3 == 0 ? 15_000 : nil
                let near = try await Self.allPages(
                    SearchQuery(text: text, lat: lat, lng: lng, radiusM: radius, limit: limit), cap: cap, source)
                #expect(
                    near == bruteForceSearch(places, q: q, lat: lat, lng: lng, radius: radius),
                    "q=\(q) cap=\(cap) near \(lat),\(lng)")
                compared += plain.count + near.count
            }
        }
        // The queries match: most of the seeded names hold one of them.
        #expect(compared > 400)
    }
}
