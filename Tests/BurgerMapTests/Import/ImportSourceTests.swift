import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import Testing

@testable import BurgerMapSQLite

@Suite("Import categories and sources")
struct ImportSourceTests {
    @Test("--category fills rows without a category; a row's own category wins; category=burger finds them")
    func defaultCategory() async throws {
        let environment = try TestEnvironment()
        let csv = try environment.file(
            "chains.csv",
            """
            name,lat,lng,id,category,website
            Patty One,37.5,127.0,p1,,https://one.example
            Noodle Two,37.5001,127.0,p2,noodles,"http://two.example,http://other.example"
            """)
        let summary = try PlaceImport(database: environment.database).run(file: csv, category: " burger ")
        #expect(summary.inserted == 2)
        let burgers = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 37.5, lng: 127.0, radiusM: 1000, limit: 10, category: "burger"))
        #expect(burgers.items.map(\.place.name) == ["Patty One"])
        #expect(burgers.items.first?.place.website == "https://one.example")
        let noodles = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 37.5, lng: 127.0, radiusM: 1000, limit: 10, category: "noodles"))
        #expect(noodles.items.map(\.place.website) == ["http://two.example"])

        // Importing again with another category updates the rows that had none.
        let again = try PlaceImport(database: environment.database).run(file: csv, category: "smash")
        #expect(again.updated == 1 && again.unchanged == 1)
    }

    @Test("a category option that breaks the field rule stops the import before any row")
    func invalidCategory() async throws {
        let environment = try TestEnvironment()
        let csv = try environment.file("one.csv", "name,lat,lng\nPatty,1,1\n")
        #expect(throws: ImportOptionError.self) {
            try PlaceImport(database: environment.database).run(file: csv, category: String(repeating: "b", count: 101))
        }
        #expect(try await environment.rowCount("places") == 0)
    }

    @Test("sources are listed with counts; removing one deletes its places but keeps the reviewed ones")
    func listAndRemoveSources() async throws {
        let environment = try TestEnvironment()
        let importer = PlaceImport(database: environment.database)
        _ = try importer.run(
            file: try environment.file("seoul.csv", "name,lat,lng,id\nA,37.5,127,a\nB,37.6,127,b\nC,37.7,127,c\n"))
        _ = try importer.run(file: try environment.file("busan.csv", "name,lat,lng,id\nD,35.1,129,d\n"))
        let nearby = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 37.5, lng: 127, radiusM: 100, limit: 1))
        let reviewed = try #require(nearby.items.first?.place.id)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            _ = try await client.reviewID(place: reviewed, token: alice.token)
        }
        #expect(
            try await environment.database.placeSources() == [
                PlaceSource(name: "busan", places: 1, reviewedPlaces: 0),
                PlaceSource(name: "seoul", places: 3, reviewedPlaces: 1),
            ])
        let removed = try await environment.database.removePlaceSource("seoul")
        #expect(removed.deleted == 2 && removed.kept == 1)
        #expect(
            try await environment.database.placeSources() == [
                PlaceSource(name: "busan", places: 1, reviewedPlaces: 0),
                PlaceSource(name: "seoul", places: 1, reviewedPlaces: 1),
            ])
        #expect(try await environment.database.place(id: reviewed)?.name == "A")
        #expect(try await environment.rowCount("reviews") == 1)
        let nothing = try await environment.database.removePlaceSource("nowhere")
        #expect(nothing.deleted == 0 && nothing.kept == 0)
    }
}
