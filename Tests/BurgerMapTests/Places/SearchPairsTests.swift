import BurgerMapCore
import Foundation
import Logging
import Testing

@testable import BurgerMapPostgres

/// The pairs of 2-code-point searches (`SearchPairs`, `PostgresSearchPairs`).
@Suite("Search pairs")
struct SearchPairsTests {
    @Test("a count lists the places of the pairs that few hold and names the others common")
    func counting() {
        var count = SearchPairCount(listedAtMost: 2)
        // "ab" on the names of 1, 2 (ASCII) and 3 (beside a non-ASCII letter), once per place;
        // "é!" only on 3; "b\nc" is no pair (a line break between other names).
        count.add(place: 1, name: "abab", names: nil, address: nil)
        count.add(place: 2, name: "xab", names: "b\nc", address: "ab")
        count.add(place: 3, name: "abé!", names: nil, address: nil)
        let key = { (pair: String, inAddress: Bool) -> Int64 in
            let scalars = Array(pair.unicodeScalars)
            return SearchPairs.key(scalars[0], scalars[1], inAddress: inAddress)
        }
        #expect(count.commonKeys == [key("ab", false)])
        let listed = Dictionary(uniqueKeysWithValues: count.listed.map { ($0.key, $0.places) })
        #expect(
            listed == [
                key("ba", false): [1], key("xa", false): [2], key("ab", true): [2], key("bé", false): [3],
                key("é!", false): [3],
            ])
        // A place's own keys, as every later write lists them.
        #expect(
            SearchPairs.keys(name: "xab", names: "b\nc", address: "ab")
                == [key("xa", false), key("ab", false), key("ab", true)].sorted())
        #expect(SearchPairs.keys(ofQuery: "é!")! == (key("é!", false), key("é!", true)))
        #expect(SearchPairs.keys(ofQuery: "abc") == nil)
    }

    /// The brute-force seed on PostgreSQL with its pairs counted again so that those held by more
    /// than three places are common, then written to in every way a place is written.
    @Test("on PostgreSQL, 2-code-point searches equal a brute-force scan with common pairs and after writes")
    func postgresPairsEqualBruteForce() async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        var places = try await PlaceSearchBruteForceTests.seed(environment)
        try await postgres.client.withConnection { connection in
            try await PostgresSearchPairs(connection: connection, logger: postgres.logger).rebuild(listedAtMost: 3)
        }
        let common = try await postgres.client.query("SELECT count(*) FROM search_common_pairs")
        for try await common in common.decode(Int64.self) { #expect(common > 10) }
        let queries = ["bu", "rg", "ur", "rd", "qz", "wy", "kx", "京都", "버거", "\"q", "0%", "ße", "zz", "a_", "ca"]
        try await Self.compare(queries, places, environment)

        // A new place, a renamed one and an import (an insert, then an update), each holding
        // pairs that are listed and pairs that are common.
        let user = try await PostgresHarness(engine: postgres).makeUser("pairs")
        _ = try await postgres.places.createPlace(
            PlaceDraft(name: "Zq Burger", lat: 37.5, lng: 127.0, address: "9 Qz Rd"), by: user)
        let own = try await postgres.places.createPlace(PlaceDraft(name: "Kxq", lat: 37.4, lng: 127.1), by: user)
        guard
            case .done = try await postgres.places.updatePlace(
                id: own.place.id, by: user, PlaceEdit(name: "Wyvern Ca"), at: Timestamp(milliseconds: 1))
        else {
            Issue.record("the rename failed")
            return
        }
        let file = try environment.file(
            "pairs.csv", "id,name,lat,lng,address\nn1,Qzzy Grill,37.45,127.02,\nn2,Burgerk,35.7,139.7,Kx Rd\n")
        #expect(try await environment.load(file, source: "pairs").inserted == 2)
        let update = try environment.file(
            "pairs2.csv", "id,name,lat,lng,address\nn1,京都 Wy,37.45,127.02,\nn2,Burgerk,35.7,139.7,Kx Rd\n")
        #expect(try await environment.load(update, source: "pairs").updated == 1)
        let seeded = places.count
        let reviews = Dictionary(places.map { ($0.place.id, $0.reviews) }, uniquingKeysWith: { first, _ in first })
        places = try await environment.allPlaces().map { ($0, reviews[$0.id] ?? 0) }
        #expect(places.count == seeded + 4)
        try await Self.compare(queries + ["wy", "zy", "yv"], places, environment)
    }

    /// Every page of each query, with and without a point, against the brute force.
    private static func compare(
        _ queries: [String], _ places: [(place: Place, reviews: Int)], _ environment: TestEnvironment
    ) async throws {
        let source = PlaceSearchWalkTests.tiers(environment)
        for (round, q) in queries.enumerated() {
            let text = SearchText.fold(q)
            let limit = [1, 3, 7][round % 3]
            let plain = try await PlaceSearchWalkTests.allPages(
                SearchQuery(text: text, limit: limit), cap: TieredSearch.matchCap, source)
            #expect(plain == bruteForceSearch(places, q: q), "q=\(q)")
            let near = try await PlaceSearchWalkTests.allPages(
                SearchQuery(text: text, lat: 37.45, lng: 127.05, limit: limit), cap: TieredSearch.matchCap, source)
            #expect(near == bruteForceSearch(places, q: q, lat: 37.45, lng: 127.05), "q=\(q) near")
        }
    }
}
