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

    /// The brute-force seed (on PostgreSQL with its pairs counted again, so that those held by
    /// more than three places are common), then written to in every way a place is written:
    /// created, renamed, its address changed, deleted, imported and updated by an import. On
    /// SQLite the writes go through the triggers of the names' and the address lines' indexes.
    @Test(
        "2-code-point and longer searches equal a brute-force scan after every kind of write",
        arguments: StoreEngine.available)
    func pairsEqualBruteForceAfterWrites(_ engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        var places = try await PlaceSearchBruteForceTests.seed(environment)
        let harness: any StoreHarness
        if let postgres = environment.postgres {
            harness = PostgresHarness(engine: postgres)
            try await postgres.pool.withConnection { connection in
                try await PostgresSearchPairs(connection: connection, logger: postgres.logger).rebuild(listedAtMost: 3)
            }
            let common = try await postgres.pool.query("SELECT count(*) FROM search_common_pairs")
            for try await common in common.decode(Int64.self) { #expect(common > 10) }
        } else {
            harness = SQLiteHarness(environment: environment)
        }
        let queries = ["bu", "rg", "ur", "rd", "qz", "wy", "kx", "京都", "버거", "\"q", "0%", "ße", "zz", "a_", "ca"]
        try await Self.compare(queries, places, environment)

        // A new place, a renamed one, a moved address, a deletion and an import (an insert,
        // then an update), each holding pairs that are listed and pairs that are common.
        let store = harness.store
        let user = try await harness.makeUser("pairs")
        _ = try await store.createPlace(
            PlaceDraft(name: "Zq Burger", lat: 37.5, lng: 127.0, address: "9 Qz Rd"), by: user)
        let own = try await store.createPlace(PlaceDraft(name: "Kxq", lat: 37.4, lng: 127.1), by: user)
        let moved = try await store.createPlace(
            PlaceDraft(name: "Moved", lat: 37.6, lng: 127.0, address: "Old"), by: user)
        let gone = try await store.createPlace(
            PlaceDraft(name: "Vj Gone", lat: 37.3, lng: 127.2, address: "Vj Lane"), by: user)
        let edits = [
            (own.place.id, PlaceEdit(name: "Wyvern Ca")), (moved.place.id, PlaceEdit(address: .set("Jq Way, Yv"))),
        ]
        for (id, edit) in edits {
            guard case .done = try await store.updatePlace(id: id, by: user, edit, at: Timestamp(milliseconds: 1))
            else {
                Issue.record("the edit of \(id) failed")
                return
            }
        }
        #expect(try await store.deletePlace(id: gone.place.id, by: user) == .deleted)
        let file = try environment.file(
            "pairs.csv", "id,name,lat,lng,address\nn1,Qzzy Grill,37.45,127.02,\nn2,Burgerk,35.7,139.7,Kx Rd\n")
        #expect(try await environment.load(file, source: "pairs").inserted == 2)
        let update = try environment.file(
            "pairs2.csv", "id,name,lat,lng,address\nn1,京都 Wy,37.45,127.02,\nn2,Burgerk,35.7,139.7,Kx Rd\n")
        #expect(try await environment.load(update, source: "pairs").updated == 1)
        let seeded = places.count
        let reviews = Dictionary(places.map { ($0.place.id, $0.reviews) }, uniquingKeysWith: { first, _ in first })
        places = try await environment.allPlaces().map { ($0, reviews[$0.id] ?? 0) }
        #expect(places.count == seeded + 5)
        try await Self.compare(queries + ["wy", "zy", "yv", "jq", "vj", "gone", "jq way"], places, environment)
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
