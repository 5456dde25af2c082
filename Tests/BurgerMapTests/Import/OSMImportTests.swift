import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// `burgermap import` of OpenStreetMap extracts, end to end on both engines: XML the test writes,
/// made into PBF by osmium-tool (the reference implementation), imported, then a newer extract
/// imported over it.
@Suite("Importing OpenStreetMap extracts")
struct OSMImportTests {
    /// An OSM XML document of `objects`.
    static func document(_ objects: [String]) -> String {
        "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\" generator=\"burgermap-tests\">\n"
            + objects.joined(separator: "\n") + "\n</osm>\n"
    }

    static func node(_ id: Int, _ lat: Double, _ lng: Double, _ tags: [String: String] = [:]) -> String {
        "<node id=\"\(id)\" version=\"1\" timestamp=\"2026-01-01T00:00:00Z\" lat=\"\(lat)\" lon=\"\(lng)\">"
            + tagXML(tags) + "</node>"
    }

    static func way(_ id: Int, _ refs: [Int], _ tags: [String: String]) -> String {
        "<way id=\"\(id)\" version=\"1\" timestamp=\"2026-01-01T00:00:00Z\">"
            + refs.map { "<nd ref=\"\($0)\"/>" }.joined() + tagXML(tags) + "</way>"
    }

    static func relation(_ id: Int, outer: [Int], _ tags: [String: String]) -> String {
        "<relation id=\"\(id)\" version=\"1\" timestamp=\"2026-01-01T00:00:00Z\">"
            + outer.map { "<member type=\"way\" ref=\"\($0)\" role=\"outer\"/>" }.joined() + tagXML(tags)
            + "</relation>"
    }

    static func tagXML(_ tags: [String: String]) -> String {
        tags.sorted { $0.key < $1.key }.map { key, value in
            let escaped = value.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(
                of: "\"", with: "&quot;"
            )
            .replacingOccurrences(of: "<", with: "&lt;")
            return "<tag k=\"\(key)\" v=\"\(escaped)\"/>"
        }.joined()
    }

    static let kingTags: [String: String] = [
        "amenity": "fast_food", "cuisine": "burger; american", "name": "버거킹 강남점", "name:ko": "버거킹 강남점",
        "name:en": "Burger King Gangnam", "name:ja": "バーガーキング江南店", "opening_hours": "Mo-Su 10:00-22:00",
        "addr:country": "KR", "addr:city": "서울", "addr:street": "테헤란로", "addr:housenumber": "152",
        "website": "www.bk.example", "phone": "+82 2-555-0100", "brand": "Burger King", "takeaway": "yes",
        "wheelchair": "limited",
    ]
    static let burger = ["amenity": "restaurant", "cuisine": "burger"]

    /// The first extract: a node with names in three scripts, a pizza place and a café (not
    /// burger places), a burger place with only `name:en`, a closed way, an open way, a way
    /// whose node is missing, a multipolygon of two outer ways.
    static let first = document([
        node(1, 37.5, 127.03, kingTags),
        node(2, 37.5, 127.0, ["amenity": "restaurant", "cuisine": "pizza", "name": "Pizza Place"]),
        node(3, 37.51, 127.0, ["amenity": "fast_food", "cuisine": "burger", "name:en": "Nameless"]),
        node(4, 37.0, 127.0), node(5, 37.0, 127.002), node(6, 37.001, 127.002), node(7, 37.001, 127.0),
        node(8, 37.4, 127.1, ["amenity": "cafe", "name": "Cafe Seoul"]),
        node(40, 36.0, 128.0), node(41, 36.0, 128.004), node(42, 36.002, 128.004), node(43, 36.002, 128.0),
        way(10, [4, 5, 6, 7, 4], burger.merging(["name": "Shack"]) { $1 }),
        way(11, [4, 5, 6], burger.merging(["name": "Open Way"]) { $1 }),
        way(12, [4, 999, 6, 4], burger.merging(["name": "Border Burger"]) { $1 }),
        way(21, [40, 41, 42], [:]), way(22, [42, 43, 40], [:]),
        relation(20, outer: [21, 22], burger.merging(["type": "multipolygon", "name": "Mall Burger"]) { $1 }),
    ])

    /// The newer extract: node 1 renamed and without its Japanese name, a new node, the closed
    /// way and the multipolygon gone.
    static let second = document([
        node(
            1, 37.5, 127.03,
            kingTags.merging(["name": "버거킹 강남역점", "name:ko": "버거킹 강남역점"]) { $1 }.filter {
                $0.key != "name:ja"
            }),
        node(2, 37.5, 127.0, ["amenity": "restaurant", "cuisine": "pizza", "name": "Pizza Place"]),
        node(30, 37.6, 127.0, ["amenity": "fast_food", "cuisine": "burger", "name": "New Burger"]),
    ])

    enum FileKind: String, CaseIterable { case xml, pbf }

    /// Writes `xml` and, for `.pbf`, converts it with osmium.
    static func extract(_ xml: String, named name: String, as kind: FileKind, in environment: TestEnvironment)
        throws -> URL
    {
        let source = try environment.file(name + ".osm", xml)
        guard kind == .pbf else { return source }
        let target = source.deletingPathExtension().appendingPathExtension("osm.pbf")
        let osmium = Process()
        osmium.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        osmium.arguments = ["osmium", "cat", source.path, "-o", target.path, "--overwrite"]
        try osmium.run()
        osmium.waitUntilExit()
        try #require(osmium.terminationStatus == 0, "osmium-tool must be installed (scripts/setup)")
        return target
    }

    func load(_ environment: TestEnvironment, _ file: URL, _ options: PlaceImportOptions) async throws -> ImportSummary
    {
        if let postgres = environment.postgres {
            return try await PlaceImport(sink: postgres.placeImport).load(file: file, options: options)
        }
        return try await PlaceImport(database: environment.database).load(file: file, options: options)
    }

    @Test(
        "an extract's burger places with their fields; a newer one updates, adds and removes",
        arguments: StoreEngine.available, FileKind.allCases)
    func importAndUpdate(engine: StoreEngine, kind: FileKind) async throws {
        let environment = try await TestEnvironment(engine)
        let options = PlaceImportOptions(timeZone: "Asia/Seoul")
        let summary = try await load(
            environment, try Self.extract(Self.first, named: "seoul-1", as: kind, in: environment), options)
        #expect(summary.inserted == 3 && summary.skipped == 2, "\(summary)")
        #expect(
            summary.skips.map(\.reason.description).sorted() == [
                "node/3 has no name tag", "way/12: node 999 is missing from the extract",
            ])

        let places = Dictionary(uniqueKeysWithValues: try await environment.allPlaces().map { ($0.externalId!, $0) })
        #expect(places.keys.sorted() == ["node/1", "relation/20", "way/10"])
        let king = try #require(places["node/1"])
        #expect(king.name == "버거킹 강남점" && king.source == "osm" && king.category == "burger")
        #expect(king.names == ["ko": "버거킹 강남점", "en": "Burger King Gangnam", "ja": "バーガーキング江南店"])
        #expect(king.address == "서울 테헤란로 152")
        #expect(king.website == "https://www.bk.example" && king.phone == "+82 2-555-0100")
        #expect(king.openingHours == "Mo-Su 10:00-22:00" && king.timeZone == "Asia/Seoul")
        #expect(
            king.attributes
                == #"{"brand":"Burger King","cuisine":["burger","american"],"takeaway":true,"wheelchair":"limited"}"#)
        #expect(king.lat == 37.5 && king.lng == 127.03)
        let shack = try #require(places["way/10"])
        #expect(abs(shack.lat - 37.0005) < 1e-7 && abs(shack.lng - 127.001) < 1e-7, "the outline's centroid")
        let mall = try #require(places["relation/20"])
        #expect(abs(mall.lat - 36.001) < 1e-7 && abs(mall.lng - 128.002) < 1e-7)

        // A review on the place that changes, one on the place that goes.
        let harness: any StoreHarness =
            environment.postgres.map { PostgresHarness(engine: $0) } ?? SQLiteHarness(environment: environment)
        try await harness.setReviews(placeID: king.id, count: 1, ratingSum: 5)
        try await harness.setReviews(placeID: shack.id, count: 2, ratingSum: 8)

        var update = options
        update.removeMissing = true
        let second = try await load(
            environment, try Self.extract(Self.second, named: "seoul-2", as: kind, in: environment), update)
        #expect(second.updated == 1 && second.inserted == 1 && second.unchanged == 0, "\(second)")
        #expect(second.removed == 1 && second.removedIDs == ["relation/20"] && second.keptForReviews == 1)

        let after = Dictionary(uniqueKeysWithValues: try await environment.allPlaces().map { ($0.externalId!, $0) })
        #expect(after.keys.sorted() == ["node/1", "node/30", "way/10"])
        let renamed = try #require(after["node/1"])
        #expect(renamed.id == king.id && renamed.reviewCount == 1, "the review stays with its place")
        #expect(renamed.name == "버거킹 강남역점" && renamed.names["ja"] == nil)
        #expect(after["way/10"]?.reviewCount == 2, "a reviewed place stays though the extract dropped it")

        let again = try await load(
            environment, try Self.extract(Self.second, named: "seoul-3", as: kind, in: environment), update)
        #expect(again.unchanged == 2 && again.updated == 0 && again.inserted == 0 && again.removed == 0)
    }

    @Test(
        "--osm-filter all-food takes every food amenity, with its amenity as category",
        arguments: StoreEngine.available)
    func allFood(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        var options = PlaceImportOptions()
        let known = options.setOSMFilter(named: "all-food")
        #expect(known)
        let summary = try await load(
            environment, try Self.extract(Self.first, named: "food", as: .pbf, in: environment), options)
        #expect(summary.inserted == 5, "\(summary)")
        let categories = try await environment.allPlaces().map { "\($0.externalId!) \($0.category ?? "-")" }.sorted()
        #expect(
            categories == [
                "node/1 burger", "node/2 restaurant", "node/8 cafe", "relation/20 burger", "way/10 burger",
            ])
    }

    @Test("CSV columns and GeoJSON properties named name:xx become names", arguments: StoreEngine.available)
    func namesFromCSVAndGeoJSON(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let csv = try environment.file(
            "names.csv", "id,name,name:ko,name:zh-Hans,lat,lng\n1,Burger House,버거 하우스,汉堡屋,37.5,127.0\n")
        _ = try await environment.load(csv)
        let geo = try environment.file(
            "names.geojson",
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"g1","geometry":{"type":"Point","coordinates":[127.1,37.6]},"properties":{"name":"Shack","name:ja":"シャック","name:bad code":"x"}}]}"#
        )
        _ = try await environment.load(geo)
        let names = try await environment.allPlaces().map(\.names)
        #expect(names == [["ko": "버거 하우스", "zh-Hans": "汉堡屋"], ["ja": "シャック"]])
    }

    @Test(
        "the web map and /tiles.json say © OpenStreetMap contributors while its data is in",
        arguments: StoreEngine.available)
    func attribution(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let marker = "data-data-attribution=\"© OpenStreetMap contributors\""
        try await environment.withClient { client in
            let page = String(buffer: try await client.send(.get, "/").body)
            #expect(page.contains("data-data-attribution=\"\"") && !page.contains(marker))
            let tiles = try json(try await client.send(.get, "/tiles.json"))
            #expect(tiles["attribution"] == nil)
        }
        _ = try await load(
            environment, try Self.extract(Self.first, named: "seoul", as: .xml, in: environment), PlaceImportOptions())
        try await environment.withClient { client in
            let page = String(buffer: try await client.send(.get, "/").body)
            #expect(page.contains(marker))
            let tiles = try json(try await client.send(.get, "/tiles.json"))
            #expect(tiles["attribution"] as? String == "© OpenStreetMap contributors")
        }
        _ = try await environment.stores.places.removePlaceSource("osm")
        try await environment.withClient { client in
            let page = String(buffer: try await client.send(.get, "/").body)
            #expect(!page.contains(marker))
        }
    }
}
