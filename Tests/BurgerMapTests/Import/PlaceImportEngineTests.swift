import CGeoIndex
import Foundation
import GRDB
import Testing

@testable import BurgerMap
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

extension TestEnvironment {
    /// Imports `file` into this environment's engine, as `burgermap import` does.
    func load(_ file: URL, source: String? = nil, category: String? = nil) async throws -> ImportSummary {
        if let postgres {
            return try await PlaceImport(sink: postgres.placeImport).load(
                file: file, source: source, category: category)
        }
        return try await PlaceImport(database: database).load(file: file, source: source, category: category)
    }

    /// The engine's side of an import.
    var importSink: any PlaceImportSink {
        if let postgres { return postgres.placeImport }
        return database
    }

    /// Every place, by id, as `GET /places/{id}` shows it (the creation time left out: it is
    /// the time of the import).
    func allPlaces() async throws -> [Place] {
        var ids: [Int64] = []
        if let postgres {
            for try await id in try await postgres.client.query("SELECT id FROM places ORDER BY id").decode(Int64.self)
            {
                ids.append(id)
            }
        } else {
            ids = try await database.pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM places ORDER BY id")
            }
        }
        var places: [Place] = []
        for id in ids {
            var place = try #require(try await stores.places.place(id: id))
            place.createdAt = Timestamp(milliseconds: 0)
            places.append(place)
        }
        return places
    }

    /// The names of the places within `radius` metres of a point, nearest first.
    func namesNear(_ lat: Double, _ lng: Double, radius: Double) async throws -> [String] {
        try await stores.places.nearbyPlaces(NearbyQuery(lat: lat, lng: lng, radiusM: radius, limit: 100)).items
            .map(\.place.name)
    }
}

extension Place {
    var withoutID: Place {
        var place = self
        place.id = 0
        return place
    }
}

/// What an import answered, in a form two engines' answers compare by (the time aside).
struct SummaryView: Equatable, CustomStringConvertible {
    var read, inserted, updated, unchanged, skipped: Int
    var skips: [String]

    init(_ summary: ImportSummary) {
        (read, inserted, updated, unchanged, skipped) = (
            summary.read, summary.inserted, summary.updated, summary.unchanged, summary.skipped
        )
        skips = summary.skips.map(\.description)
    }

    init(read: Int, inserted: Int, updated: Int = 0, unchanged: Int = 0, skipped: Int = 0, skips: [String] = []) {
        (self.read, self.inserted, self.updated, self.unchanged, self.skipped, self.skips) = (
            read, inserted, updated, unchanged, skipped, skips
        )
    }

    var description: String {
        "read \(read) inserted \(inserted) updated \(updated) unchanged \(unchanged) skipped \(skipped) \(skips)"
    }
}

/// The latitude `metres` north of `lat` on the contract's sphere (a meridian is a great circle).
func north(of lat: Double, metres: Double) -> Double {
    lat + metres / 6_371_008.8 * 180 / .pi
}

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
        arguments: StoreEngine.allCases)
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
        arguments: StoreEngine.allCases)
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
        arguments: StoreEngine.allCases)
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
        "a row without an id matches the same name (any case) within 25 m, and not at 25.1 m",
        arguments: StoreEngine.allCases)
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
        arguments: StoreEngine.allCases)
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
        arguments: StoreEngine.allCases)
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

    @Test(
        "a bad row in the middle of a long file is reported; every other row is stored", arguments: StoreEngine.allCases
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
        "a file that cannot be read, or fails half-way, leaves the database as it was", arguments: StoreEngine.allCases)
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

    @Test("progress is reported while rows go in, with the rows taken so far", arguments: StoreEngine.allCases)
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

/// Seeded files of every kind of row, imported one after another into both engines: after each,
/// the summaries and every place must be the same.
@Suite("Place import: engines agree")
struct PlaceImportEnginesAgreeTests {
    /// A row of a generated file.
    static func row(_ random: inout SeededGenerator, line: Int) -> String {
        // Spots 110 m apart, each with places and rows around it within about 30 m.
        let spot = Int.random(in: 0..<12, using: &random)
        let lat = 45.0 + Double(spot / 4) * 0.001 + Double.random(in: -0.00027...0.00027, using: &random)
        let lng = 7.0 + Double(spot % 4) * 0.0014 + Double.random(in: -0.00012...0.00012, using: &random)
        let names = [
            "Corner Burger", "corner burger", "CORNER BURGER", "Café Ünal", "CAFÉ ÜNAL", "Cafe\u{301} Ünal", "Patty",
        ]
        let name = names[Int.random(in: 0..<names.count, using: &random)]
        let phone = ["", "1", "2"][Int.random(in: 0..<3, using: &random)]
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<9:
            // Few ids, so that they repeat within and across files.
            return "k\(Int.random(in: 0..<25, using: &random)),\(name),\(lat),\(lng),\(phone)"
        case 9..<18:
            return ",\(name),\(lat),\(lng),\(phone)"
        case 18:
            return ",\(name),,\(lng),\(phone)"
        default:
            return "k\(line % 5),,\(lat),\(lng),\(phone)"
        }
    }

    @Test(
        "seeded files with ids, names near each other, duplicates and bad rows",
        arguments: [20_260_501, 7, 1234] as [UInt64])
    func seededFiles(seed: UInt64) async throws {
        let sqlite = try await TestEnvironment(.sqlite)
        let postgres = try await TestEnvironment(.postgres)
        var random = SeededGenerator(seed: seed)
        var files: [(URL, String)] = []
        for index in 0..<8 {
            var csv = "id,name,lat,lng,phone\n"
            for line in 2..<(2 + Int.random(in: 20...90, using: &random)) {
                csv += Self.row(&random, line: line) + "\n"
            }
            files.append((try sqlite.file("f\(index).csv", csv), index % 3 == 2 ? "other" : "main"))
        }
        // The first files again at the end: by then most rows match.
        files += files.prefix(3)
        var totals = SummaryView(read: 0, inserted: 0)
        for (index, (file, source)) in files.enumerated() {
            let expected = SummaryView(try await sqlite.load(file, source: source))
            let summary = SummaryView(try await postgres.load(file, source: source))
            #expect(summary == expected, "file \(index)")
            // In id order, without the ids: SQLite's AUTOINCREMENT spends an id on every row whose
            // insert found its (source, id) taken, PostgreSQL's identity only on new places.
            let places = try await sqlite.allPlaces().map(\.withoutID)
            let found = try await postgres.allPlaces().map(\.withoutID)
            #expect(found.count == places.count, "places after file \(index)")
            for (sqlitePlace, postgresPlace) in zip(places, found) where sqlitePlace != postgresPlace {
                Issue.record("file \(index): SQLite has \(sqlitePlace), PostgreSQL \(postgresPlace)")
                break
            }
            totals.inserted += summary.inserted
            totals.updated += summary.updated
            totals.unchanged += summary.unchanged
            totals.skipped += summary.skipped
        }
        // The files exercise every outcome.
        #expect(totals.inserted > 0 && totals.updated > 0 && totals.unchanged > 0 && totals.skipped > 0)
    }
}

@Suite("Place import on PostgreSQL: first loads")
struct PostgresFirstImportTests {
    /// Every index of `places` with its definition.
    static func indexes(_ engine: PostgresEngine) async throws -> [String] {
        var definitions: [String] = []
        let rows = try await engine.client.query(
            "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'places'::regclass ORDER BY 1")
        for try await definition in rows.decode(String.self) { definitions.append(definition) }
        return definitions
    }

    @Test("a load into an empty table builds the indexes again as they were; a failed one leaves them too")
    func indexesComeBack() async throws {
        try await withPostgresEngine { engine in
            let before = try await Self.indexes(engine)
            // The six of v1-places after v4-nearby-on-geometry, place search's B-tree of folded
            // names and two GIN trigram indexes, and the two cell indexes of map clusters.
            #expect(before.count == 11)
            let environment = try TestEnvironment()
            struct ReadFailure: Error {}
            let pipeline = ImportPipeline()
            pipeline.put(
                .batch([(2, .place(PlaceDraft(name: "A", lat: 1, lng: 1, source: "s", externalId: "a")))], bytesRead: 1)
            )
            pipeline.put(.failure(ReadFailure()))
            let feed = PlaceImportFeed(
                source: "s", locationWord: "line", totalBytes: nil, started: Date(), pipeline: pipeline, progress: nil)
            await #expect(throws: ReadFailure.self) { try await engine.placeImport.importPlaces(from: feed) }
            #expect(try await Self.indexes(engine) == before)

            let file = try environment.file("a.csv", "id,name,lat,lng\na,A,1,1\nb,B,1.0001,1\na,A again,1,1\n")
            let summary = try await PlaceImport(sink: engine.placeImport).load(file: file, source: "s")
            #expect(
                summary.inserted == 2
                    && summary.skips.map(\.description) == ["line 4: id \"a\" already given on line 2"])
            #expect(try await Self.indexes(engine) == before)
            let near = try await engine.places.nearbyPlaces(NearbyQuery(lat: 1, lng: 1, radiusM: 20, limit: 5))
            #expect(near.items.map(\.place.name) == ["A", "B"])
        }
    }
}
