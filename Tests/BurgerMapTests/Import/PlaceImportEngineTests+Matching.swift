import CGeoIndex
import Foundation
import GRDB
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// Matching rows to places already stored: by id, by name nearby, and repeated ids.
extension PlaceImportEngineTests {
    @Test(
        "a row without an id matches the same name (any case) within 25 m, and not at 25.1 m",
        arguments: StoreEngine.available)
    func nameMatching(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        _ = try await environment.load(
            try environment.file(
                "a.csv",
                "id,name,lat,lng,phone\n,Corner Burger,48.0,11.0,1\nk1,Café Ünal,50.0,8.0,1\n,Twin,52.0,13.0,1\n"),
            source: "a")
        let inside = north(of: 48.0, metres: 24.9)
        let outside = north(of: 48.0, metres: 25.1)
        #expect(bm_haversine_m(48.0, 11.0, inside, 11.0) < 25 && bm_haversine_m(48.0, 11.0, outside, 11.0) > 25)
        let summary = try await environment.load(
            try environment.file(
                "b.csv",
                """
                name,lat,lng,phone
                Corner Burger,\(outside),11.0,3
                corner burger,\(inside),11.0,2
                CAFÉ ÜNAL,\(north(of: 50.0, metres: 10)),8.0,1
                Twin,52.0,13.0,1
                Twin,52.0,13.0,1
                """),
            source: "b")
        // The row at 25.1 m comes first and still matches nothing; the one at 24.9 m then takes
        // the place (and renames it); of the two twins the first takes the place, the second is new.
        #expect(SummaryView(summary) == SummaryView(read: 5, inserted: 2, updated: 2, unchanged: 1))
        let places = try await environment.allPlaces()
        #expect(places.map(\.name) == ["corner burger", "CAFÉ ÜNAL", "Twin", "Corner Burger", "Twin"])
        // Matched by name, a place keeps its source and id.
        #expect(places[1].source == "a" && places[1].externalId == "k1" && places[1].phone == "1")
        #expect(places[3].source == "b" && places[3].phone == "3")
        #expect(places[0].lat == inside && places[0].phone == "2")

        // The same text in another Unicode form is the same text: nothing to update.
        let decomposed = try await environment.load(
            try environment.file(
                "c.csv", "name,lat,lng,phone\nCAFE\u{301} U\u{308}NAL,\(north(of: 50.0, metres: 10)),8.0,1\n"))
        #expect(SummaryView(decomposed) == SummaryView(read: 1, inserted: 0, unchanged: 1))
    }

    @Test(
        "name matching reaches across the antimeridian, over a pole and east-west far north, and not past 25 m",
        arguments: StoreEngine.available)
    func nameMatchingAtAwkwardSpots(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        _ = try await environment.load(
            try environment.file(
                "a.csv",
                """
                name,lat,lng
                East,0.0,179.9999
                Pole,89.9999,0
                North,80.0,20.0
                Far,80.0,30.0
                """),
            source: "a")
        // Each row is 11 to 24 m from its place on the contract's sphere; `Far`'s is 26 m away.
        let rows: [(name: String, lat: Double, lng: Double)] = [
            ("East", 0.0, -179.99995), ("Pole", 89.9999, 180), ("North", 80.0, 20.0012), ("Far", 80.0, 30.00135),
        ]
        let distances = zip(rows, [(0.0, 179.9999), (89.9999, 0), (80.0, 20.0), (80.0, 30.0)]).map {
            bm_haversine_m($0.lat, $0.lng, $1.0, $1.1)
        }
        #expect(distances[0..<3].allSatisfy { $0 > 11 && $0 < 25 } && distances[3] > 25)
        let summary = try await environment.load(
            try environment.file(
                "b.csv", "name,lat,lng\n" + rows.map { "\($0.name),\($0.lat),\($0.lng)" }.joined(separator: "\n")),
            source: "b")
        #expect(SummaryView(summary) == SummaryView(read: 4, inserted: 1, updated: 3))
        let places = try await environment.allPlaces()
        #expect(places.map(\.lng) == [-179.99995, 180, 20.0012, 30.0, 30.00135])
    }

    @Test(
        "ids repeated in a file are skipped after the first, also when a row without an id took the place first",
        arguments: StoreEngine.available)
    func duplicateIDs(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        _ = try await environment.load(
            try environment.file("base.csv", "id,name,lat,lng\nx1,Existing,1,1\nx2,Other,2,2\n"), source: "s")
        let summary = try await environment.load(
            try environment.file(
                "next.csv",
                """
                id,name,lat,lng,phone
                n1,New,3,3,1
                n1,New Again,3,3,2
                x1,Existing,1,1,9
                ,Other,2,2,7
                x2,Other,2,2,8
                x1,Existing,1,1,10
                n1,Third,3,3,3
                """),
            source: "s")
        #expect(
            SummaryView(summary)
                == SummaryView(
                    read: 7, inserted: 1, updated: 2, skipped: 4,
                    skips: [
                        "line 3: id \"n1\" already given on line 2",
                        "line 6: id \"x2\" already given on line 5",
                        "line 7: id \"x1\" already given on line 4",
                        "line 8: id \"n1\" already given on line 2",
                    ]))
        let places = try await environment.allPlaces()
        #expect(places.map(\.name) == ["Existing", "Other", "New"])
        #expect(places.map(\.phone) == ["9", "7", "1"])

        // No id repeats here, but the row without an id takes the place first.
        let taken = try await environment.load(
            try environment.file("taken.csv", "id,name,lat,lng,phone\n,New,3,3,1\nn1,New,3,3,1\n"), source: "s")
        #expect(
            SummaryView(taken)
                == SummaryView(
                    read: 2, inserted: 0, unchanged: 1, skipped: 1, skips: ["line 3: id \"n1\" already given on line 2"]
                ))
    }
}
