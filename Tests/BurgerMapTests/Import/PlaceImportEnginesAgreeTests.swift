import CGeoIndex
import Foundation
import GRDB
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

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

extension PlaceImportEnginesAgreeTests {
    /// The import's event as a map cache reads it: its cells and their level.
    static func lastImportCells(_ environment: TestEnvironment) async throws -> (cells: [Int64], level: Int?) {
        let events = try await environment.stores.events.events(after: 0, limit: 1_000)
        let imported = try #require(events.last { $0.event.kind == .placesImported })
        return (imported.event.details.cells ?? [], imported.event.details.cellLevel)
    }

    @Test("a first load and a reload that moves places give the same event cells and level on both engines")
    func importEventCells() async throws {
        try TestServers.skipUnless(TestServers.postgresRuns)
        let sqlite = try await TestEnvironment(.sqlite)
        let postgres = try await TestEnvironment(.postgres)
        var random = SeededGenerator(seed: 61)
        // 6,000 places over the world: more cells than an event lists at the finest level.
        var rows: [(lat: Double, lng: Double)] = (0..<6_000).map { _ in
            (Double.random(in: -80...80, using: &random), Double.random(in: -179...179, using: &random))
        }
        func csv() -> String {
            "id,name,lat,lng\n"
                + rows.enumerated().map { "\($0.offset),Place \($0.offset),\($0.element.lat),\($0.element.lng)" }
                .joined(separator: "\n")
        }
        for round in 0..<2 {
            let file = try sqlite.file("world\(round).csv", csv())
            _ = try await sqlite.load(file, source: "world")
            _ = try await postgres.load(file, source: "world")
            let expected = try await Self.lastImportCells(sqlite)
            let found = try await Self.lastImportCells(postgres)
            #expect(found.level == expected.level, "round \(round)")
            #expect(found.cells == expected.cells, "round \(round)")
            #expect(expected.cells.count <= EventDetails.maximumCells)
            // The second round moves a hundred places far away: their old cells count too.
            for index in 0..<100 { rows[index] = (rows[index].lat / 2, rows[index].lng / 2) }
        }
    }
}

@Suite("Place import on PostgreSQL: first loads")
struct PostgresFirstImportTests {
    /// Every index of `places` with its definition.
    static func indexes(_ engine: PostgresEngine) async throws -> [String] {
        var definitions: [String] = []
        let rows = try await engine.pool.query(
            "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'places'::regclass ORDER BY 1")
        for try await definition in rows.decode(String.self) { definitions.append(definition) }
        return definitions
    }

    @Test("a load into an empty table builds the indexes again as they were; a failed one leaves them too")
    func indexesComeBack() async throws {
        try await withPostgresEngine { engine in
            let before = try await Self.indexes(engine)
            // The six of v1-places after v4-nearby-on-geometry, place search's B-tree of folded
            // names and three GIN trigram indexes (names, other languages' names, addresses), and
            // the two cell indexes of map clusters.
            #expect(before.count == 12)
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
