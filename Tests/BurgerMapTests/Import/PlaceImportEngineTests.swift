import CGeoIndex
import Foundation
import GRDB
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// The import on both engines: the same files give the same places, counts and skip lists.
@Suite("Place import on both engines")
struct PlaceImportEngineTests {
    static let cityCSV = #"""
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
        """#

    @Test(
        "CSV: bad rows skipped with line and reason, good rows stored; a second run changes nothing",
        arguments: StoreEngine.available)
    func csvAndIdempotence(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let csv = try environment.file("city.csv", Self.cityCSV)
        let first = try await environment.load(csv)
        #expect(
            SummaryView(first)
                == SummaryView(
                    read: 9, inserted: 4, skipped: 5,
                    skips: [
                        "line 3: missing latitude",
                        "line 4: missing name",
                        "line 5: latitude \"abc\" is not a number",
                        "line 6: latitude 91.0 is out of range (-90 to 90)",
                        "line 9: id \"b1\" already given on line 2",
                    ]))
        let places = try await environment.allPlaces()
        #expect(places.map(\.name) == ["Burger \"One\"", "Multi Line Name", "No Id Burger", "Last"])
        let one = try #require(places.first)
        #expect(one.address == "1 Main St, Seoul" && one.phone == "+82-2-1" && one.category == "burger")
        #expect(one.source == "city" && one.externalId == "b1")
        #expect(places[2].source == "city" && places[2].externalId == nil)
        #expect(try await environment.namesNear(37.5, 127.0, radius: 50_000).count == 3)

        let second = try await environment.load(csv)
        #expect(
            SummaryView(second)
                == SummaryView(read: 9, inserted: 0, unchanged: 4, skipped: 5, skips: first.skips.map(\.description)))
        #expect(try await environment.allPlaces() == places)
    }

    static let featuresGeoJSON = """
        {"type": "FeatureCollection", "name": "with \\"features\\" in a string",
         "features": [
          {"type": "Feature", "id": 7, "geometry": {"type": "Point", "coordinates": [139.7, 35.68]},
           "properties": {"name": "Tokyo Burger", "category": "burger", "phone": 123}},
          {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0,0],[1,1]]}, "properties": {"name": "Line"}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [0, 1]}, "properties": {"name": "Zero One"}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": ["x", 1]}, "properties": {"name": "Bad"}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 95]}, "properties": {"name": "Bad lat"}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"name": "Trailing"}} oops,
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2, 3]}, "properties": {"title": "No name"}},
          {"type": "Feature", "id": "k\\\\1", "geometry": {"type": "Point", "coordinates": [2.5, 3.5]},
           "properties": {"name": "Back\\\\slash \\"Quoted\\"", "address": "tab\\there"}}
         ]}
        """

    @Test(
        "GeoJSON: broken features skipped by number, the rest stored; again: all unchanged",
        arguments: StoreEngine.available)
    func geoJSON(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let file = try environment.file("places.geojson", Self.featuresGeoJSON)
        let skips = [
            "feature 2: geometry is not a Point",
            "feature 4: Point coordinates are not two numbers",
            "feature 5: latitude 95.0 is out of range (-90 to 90)",
            "feature 6: not a valid JSON object",
            "feature 7: missing name",
        ]
        let first = try await environment.load(file)
        #expect(SummaryView(first) == SummaryView(read: 8, inserted: 3, skipped: 5, skips: skips))
        let places = try await environment.allPlaces()
        #expect(places.map(\.name) == ["Tokyo Burger", "Zero One", "Back\\slash \"Quoted\""])
        #expect(places[0].externalId == "7" && places[0].phone == "123" && places[0].category == "burger")
        // Backslashes and tabs (a tab becomes a space) reach the database as they were.
        #expect(places[2].externalId == "k\\1" && places[2].address == "tab here")
        let second = try await environment.load(file)
        #expect(SummaryView(second) == SummaryView(read: 8, inserted: 0, unchanged: 3, skipped: 5, skips: skips))
        #expect(try await environment.allPlaces() == places)
    }

    @Test(
        "a changed file updates its places (a moved one is found where it went); the rest stay unchanged",
        arguments: StoreEngine.available)
    func updates(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        _ = try await environment.load(
            try environment.file(
                "a.csv", "id,name,lat,lng,phone\n1,Old Name,10,10,1\n2,Stays,20,20,2\n3,Phone,30,30,3\n"),
            source: "s")
        let before = try await environment.allPlaces()
        let summary = try await environment.load(
            try environment.file(
                "b.csv",
                "id,name,lat,lng,phone\n1,New Name,10.5,10.5,1\n2,Stays,20,20,2\n3,Phone,30,30,33\n4,New,40,40,\n"),
            source: "s")
        #expect(SummaryView(summary) == SummaryView(read: 4, inserted: 1, updated: 2, unchanged: 1))
        let after = try await environment.allPlaces()
        #expect(after.map(\.id) == before.map(\.id) + [after[3].id])
        #expect(after.map(\.name) == ["New Name", "Stays", "Phone", "New"])
        #expect(after[2].phone == "33" && after[1] == before[1])
        #expect(try await environment.namesNear(10.5, 10.5, radius: 10) == ["New Name"])
        #expect(try await environment.namesNear(10, 10, radius: 1000).isEmpty)
        // Another source's file with the same ids brings its own places.
        let other = try await environment.load(
            try environment.file("c.csv", "id,name,lat,lng\n1,New Name,10.5,10.5\n"), source: "t")
        #expect(other.inserted == 1)
    }

    @Test(
        "a bad row in the middle of a long file is reported; every other row is stored",
        arguments: StoreEngine.available
    )
    func badRowInTheMiddle(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        var csv = "id,name,lat,lng,category\n"
        for index in 1...5000 {
            let lat = index == 2500 ? "north" : String(Double(index) / 1000)
            let name = index == 3700 ? String(repeating: "n", count: 301) : "Place \(index)"
            csv += "p\(index),\(name),\(lat),100.5,\(index % 2 == 0 ? "burger" : "")\n"
        }
        let summary = try await environment.load(try environment.file("long.csv", csv), category: "diner")
        #expect(summary.read == 5000 && summary.inserted == 4998 && summary.skipped == 2)
        #expect(summary.skips.map(\.location) == ["line 2501", "line 3701"])
        #expect(summary.skips.first?.description == "line 2501: latitude \"north\" is not a number")
        let places = try await environment.allPlaces()
        #expect(places.count == 4998)
        // Odd rows have no category of their own.
        #expect(places.filter { $0.category == "diner" }.count == 2500)
        #expect(Set(try await environment.namesNear(2.5, 100.5, radius: 200)) == ["Place 2499", "Place 2501"])
    }

    @Test(
        "a file that cannot be read, or fails half-way, leaves the database as it was", arguments: StoreEngine.available
    )
    func failedRead(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        _ = try await environment.load(
            try environment.file("base.csv", "id,name,lat,lng\nx1,Existing,1,1\n"), source: "s")
        let before = try await environment.allPlaces()
        await #expect(throws: ImportError.self) {
            try await environment.load(environment.folder.appendingPathComponent("missing.csv"))
        }
        await #expect(throws: ImportError.self) {
            try await environment.load(try environment.file("x.csv", "title,x,y\nA,1,2\n"))
        }
        await #expect(throws: ImportError.self) {
            try await environment.load(try environment.file("x.geojson", "[1,2,3]"))
        }
        // Rows reach the engine (a new place, an update of the existing one), then the reader fails.
        struct ReadFailure: Error {}
        let pipeline = ImportPipeline()
        var rows: PlaceImportFeed.Batch = [
            (2, .place(PlaceDraft(name: "Renamed", lat: 1, lng: 1, source: "s", externalId: "x1")))
        ]
        for index in 3..<3000 {
            rows.append(
                (index, .place(PlaceDraft(name: "New \(index)", lat: 5, lng: 5, source: "s", externalId: "n\(index)"))))
        }
        pipeline.put(.batch(rows, bytesRead: 100))
        pipeline.put(.failure(ReadFailure()))
        let feed = PlaceImportFeed(
            source: "s", locationWord: "line", totalBytes: nil, started: Date(), pipeline: pipeline, progress: nil)
        await #expect(throws: ReadFailure.self) { try await environment.importSink.importPlaces(from: feed) }
        #expect(try await environment.allPlaces() == before)
        // And the engine takes the next import as usual.
        let again = try await environment.load(
            try environment.file("base.csv", "id,name,lat,lng\nx1,Existing,1,1\n"), source: "s")
        #expect(again.unchanged == 1)
    }

    @Test("progress is reported while rows go in, with the rows taken so far", arguments: StoreEngine.available)
    func progress(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        var csv = "name,lat,lng\n"
        for index in 0..<20_000 { csv += "P\(index),\(Double(index % 1000) / 100),\(Double(index / 1000) / 100)\n" }
        let file = try environment.file("many.csv", csv)
        let reports = Reports()
        let summary: ImportSummary
        if let postgres = environment.postgres {
            summary = try await PlaceImport(sink: postgres.placeImport).load(file: file, progress: reports.add)
        } else {
            summary = try await PlaceImport(database: environment.database).load(file: file, progress: reports.add)
        }
        let all = reports.all
        #expect(all.last?.rows == 20_000 && all.last?.bytesRead == all.last?.totalBytes)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.rows <= $1.rows })
        #expect(summary.inserted == 20_000)
    }

    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var reports: [ImportProgress] = []
        var all: [ImportProgress] { lock.withLock { reports } }
        func add(_ progress: ImportProgress) { lock.withLock { reports.append(progress) } }
    }
}
