import Foundation
import GRDB
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapSQLite

@Suite("Place import")
struct PlaceImportTests {
    /// The Datafiniti dataset beside the project, when present.
    static let fastFood = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/datasets/FastFoodRestaurants.csv")

    /// A number the database computes. (On the writer: SpatiaLite's index check records its
    /// result in a statistics table.)
    func count(_ environment: TestEnvironment, _ sql: String) async throws -> Int {
        try await environment.database.pool.write { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test("bad rows are skipped with line and reason; good rows import; a second run changes nothing")
    func badRowsAndIdempotence() async throws {
        let environment = try TestEnvironment()
        let csv = try environment.file(
            "city.csv",
            #"""
            Name,Latitude,Longitude,id,Address,Phone,Category,Extra
            "Burger ""One""",37.5,127.0,b1,"1 Main St, Seoul",+82-2-1,burger,x
            No Coordinates,,127.0,b2,,,,
            ,37.5,127.0,b3,,,,
            Bad Lat,abc,127.0,b4,,,,
            Far North,91,127.0,b5,,,,
            "Multi
            Line Name",37.51,127.01,b6,,,,
            Dup,37.52,127.02,b1,,,,
            No Id Burger,37.53,127.03,,,,,

            Last,-33.9,151.2,b7,,,,
            """#)
        let importer = PlaceImport(database: environment.database)
        let first = try importer.run(file: csv)
        #expect(first.read == 9)
        #expect(first.inserted == 4)
        #expect(first.skipped == 5)
        #expect(
            first.skips.map(\.description) == [
                "line 3: missing latitude",
                "line 4: missing name",
                "line 5: latitude \"abc\" is not a number",
                "line 6: latitude 91.0 is out of range (-90 to 90)",
                "line 9: id \"b1\" already given on line 2",
            ])
        let stored = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 37.5, lng: 127.0, radiusM: 50_000, limit: 100))
        // A line break inside a quoted field becomes a space: names hold no control characters.
        #expect(stored.items.map(\.place.name) == ["Burger \"One\"", "Multi Line Name", "No Id Burger"])
        let one = try #require(stored.items.first?.place)
        #expect(one.address == "1 Main St, Seoul" && one.phone == "+82-2-1" && one.category == "burger")
        #expect(one.source == "city" && one.externalId == "b1")

        let second = try importer.run(file: csv)
        #expect(second.inserted == 0 && second.updated == 0 && second.unchanged == 4 && second.skipped == 5)
        #expect(try await count(environment, "SELECT count(*) FROM places") == 4)
        #expect(try await count(environment, "SELECT CheckSpatialIndex('places', 'geom')") == 1)
    }

    @Test("a changed row updates its place, and a moved place is found at its new position")
    func updates() async throws {
        let environment = try TestEnvironment()
        let importer = PlaceImport(database: environment.database)
        _ = try importer.run(
            file: try environment.file("a.csv", "id,name,lat,lng\n1,Old Name,10,10\n2,Stays,20,20\n"), source: "s")
        let summary = try importer.run(
            file: try environment.file("b.csv", "id,name,lat,lng\n1,New Name,10.5,10.5\n2,Stays,20,20\n"), source: "s")
        #expect(summary.updated == 1 && summary.unchanged == 1 && summary.inserted == 0)
        let near = try await environment.database.nearbyPlaces(NearbyQuery(lat: 10.5, lng: 10.5, radiusM: 10, limit: 5))
        #expect(near.items.map(\.place.name) == ["New Name"])
        let old = try await environment.database.nearbyPlaces(NearbyQuery(lat: 10, lng: 10, radiusM: 1000, limit: 5))
        #expect(old.items.isEmpty)
        #expect(try await count(environment, "SELECT CheckSpatialIndex('places', 'geom')") == 1)
    }

    @Test("rows without an id match the same name within 25 m, and nothing farther")
    func nameMatching() async throws {
        let environment = try TestEnvironment()
        let importer = PlaceImport(database: environment.database)
        _ = try importer.run(file: try environment.file("a.csv", "name,lat,lng,phone\nCorner Burger,48.0,11.0,1\n"))
        // 0.0002° of latitude is about 22 m; 0.0003° about 33 m.
        let summary = try importer.run(
            file: try environment.file(
                "b.csv", "name,lat,lng,phone\ncorner burger,48.0002,11.0,2\nCorner Burger,48.0003,11.0,3\n"))
        #expect(summary.updated == 1 && summary.inserted == 1)
        #expect(try await count(environment, "SELECT count(*) FROM places") == 2)
    }

    @Test("GeoJSON: Point features import; a broken feature is skipped by number and the rest still import")
    func geoJSON() async throws {
        let environment = try TestEnvironment()
        let file = try environment.file(
            "places.geojson",
            """
            {"type": "FeatureCollection", "name": "with \\"features\\" in a string",
             "features": [
              {"type": "Feature", "id": 7, "geometry": {"type": "Point", "coordinates": [139.7, 35.68]},
               "properties": {"name": "Tokyo Burger", "category": "burger", "phone": 123}},
              {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0,0],[1,1]]}, "properties": {"name": "Line"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [0, 1]}, "properties": {"name": "Zero One"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": ["x", 1]}, "properties": {"name": "Bad"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 95]}, "properties": {"name": "Bad lat"}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"name": "Trailing"}} oops,
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2, 3]}, "properties": {"title": "No name"}}
             ]}
            """)
        let summary = try PlaceImport(database: environment.database).run(file: file)
        #expect(summary.inserted == 2)
        #expect(
            summary.skips.map(\.description) == [
                "feature 2: geometry is not a Point",
                "feature 4: Point coordinates are not two numbers",
                "feature 5: latitude 95.0 is out of range (-90 to 90)",
                "feature 6: not a valid JSON object",
                "feature 7: missing name",
            ])
        let tokyo = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 35.68, lng: 139.7, radiusM: 10, limit: 1))
        #expect(tokyo.items.first?.place.externalId == "7")
        #expect(tokyo.items.first?.place.phone == "123")
    }

    @Test("a first load builds the folded names' index again as it was; a failed one leaves it too")
    func firstLoadKeepsIndexes() async throws {
        let environment = try TestEnvironment()
        func indexes() async throws -> [String] {
            try await environment.database.pool.read { db in
                try String.fetchAll(
                    db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'places' ORDER BY name")
            }
        }
        let before = try await indexes()
        #expect(before.contains { $0.contains("places_by_search_name") })
        // A read that fails after a row: the load rolls back, index and all.
        struct ReadFailure: Error {}
        let pipeline = ImportPipeline()
        pipeline.put(
            .batch([(2, .place(PlaceDraft(name: "A", lat: 1, lng: 1, source: "s", externalId: "a")))], bytesRead: 1))
        pipeline.put(.failure(ReadFailure()))
        let feed = PlaceImportFeed(
            source: "s", locationWord: "line", totalBytes: nil, started: Date(), pipeline: pipeline, progress: nil)
        await #expect(throws: ReadFailure.self) { try await environment.database.importPlaces(from: feed) }
        #expect(try await indexes() == before)
        #expect(try await count(environment, "SELECT count(*) FROM places") == 0)
        let importer = PlaceImport(database: environment.database)
        let file = try environment.file("a.csv", "id,name,lat,lng\na,Smash House,1,1\nb,Smash,1.001,1\n")
        #expect(try importer.run(file: file).inserted == 2)
        #expect(try await indexes() == before)
        let page = try await environment.database.searchPlaces(SearchQuery(text: "smash", limit: 5))
        #expect(page.items.map(\.place.name) == ["Smash", "Smash House"])
    }

    @Test("an unreadable or wrong file fails with a clear error and stores nothing")
    func unreadable() async throws {
        let environment = try TestEnvironment()
        let importer = PlaceImport(database: environment.database)
        #expect(throws: ImportError.self) {
            try importer.run(file: environment.folder.appendingPathComponent("missing.csv"))
        }
        #expect(throws: ImportError.self) { try importer.run(file: environment.folder) }
        let noColumns = try environment.file("x.csv", "title,x,y\nA,1,2\n")
        #expect(throws: ImportError.self) { try importer.run(file: noColumns) }
        // A file with another separator: the message says what to change.
        for (separator, named) in [(";", "`;`"), ("\t", "tabs")] {
            let header = ["name", "lat", "lng"].joined(separator: separator)
            let other = try environment.file("other.csv", "\(header)\nA\(separator)1\(separator)2\n")
            let error = #expect(throws: ImportError.self) { try importer.run(file: other) }
            #expect(
                error.map { "\($0)" }?.hasSuffix(
                    "the header has no name column (its names are separated by \(named): save the file as comma-separated)"
                )
                    == true)
        }
        let notJSON = try environment.file("x.geojson", "[1,2,3]")
        #expect(throws: ImportError.self) { try importer.run(file: notJSON) }
        #expect(try await count(environment, "SELECT count(*) FROM places") == 0)
    }

    @Test(
        "the Datafiniti fast-food dataset imports whole, and again without changes",
        .enabled(if: FileManager.default.fileExists(atPath: fastFood.path)))
    func fastFoodDataset() async throws {
        let environment = try TestEnvironment()
        let importer = PlaceImport(database: environment.database)
        let first = try importer.run(file: Self.fastFood)
        #expect(first.read == 10_000 && first.inserted == 10_000 && first.skipped == 0)
        // A first load runs with a rollback journal; the database is back in WAL mode after it.
        let journal = try await environment.database.pool.write { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode")
        }
        #expect(journal == "wal")
        let second = try importer.run(file: Self.fastFood)
        #expect(second.unchanged == 10_000 && second.inserted == 0 && second.updated == 0)
        #expect(try await count(environment, "SELECT count(*) FROM idx_places_geom") == 10_000)
        #expect(try await count(environment, "SELECT rtreecheck('idx_places_geom') = 'ok'") == 1)
        #expect(try await count(environment, "SELECT CheckSpatialIndex('places', 'geom')") == 1)
        // The first row of the file, by its Datafiniti key.
        let massena = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 44.9213, lng: -74.89021, radiusM: 1, limit: 1))
        #expect(massena.items.first?.place.name == "McDonald's")
        #expect(massena.items.first?.place.externalId == "us/ny/massena/324mainst/-1161002137")
        #expect(massena.items.first?.place.address == "324 Main St, Massena, NY 13662, US")
    }
}
