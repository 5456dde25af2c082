import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap

@Suite("OGC API – Features: items")
struct OGCItemsTests {
    @Test(
        "paging walks every place once in id order; numberMatched exact up to the bound and absent above it",
        arguments: StoreEngine.available)
    func paging(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.featureMatchBound = 20
        let places = try await environment.insert(
            (0..<23).map { PlaceDraft(name: "P\($0)", lat: 10 + Double($0) * 0.1, lng: 20 - Double($0) * 0.1) })
        let expected = places.map(\.id).sorted()
        try await environment.withClient { client in
            let walk = try await client.ogcWalk("/ogc/collections/places/items?limit=5")
            #expect(walk.ids == expected)
            #expect(walk.pages.count == 5)
            #expect(walk.pages.map(\.numberReturned) == [5, 5, 5, 5, 3])
            // 23 places, more than the bound of 20: never counted, on any page.
            #expect(walk.pages.allSatisfy { $0.numberMatched == nil })
            #expect(walk.pages.allSatisfy { $0.contentType == "application/geo+json" })
            let first = walk.pages[0]
            #expect(first.body["type"] as? String == "FeatureCollection")
            #expect((first.body["timeStamp"] as? String)?.hasSuffix("Z") == true)
            #expect(first.link("self") == "http://localhost/ogc/collections/places/items?limit=5")
            #expect(first.link("collection") == "http://localhost/ogc/collections/places")
            // A feature: the place's id, a point in [lng, lat] and the place's JSON as properties.
            let feature = try #require(first.features.first)
            #expect(feature["type"] as? String == "Feature")
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "Point")
            #expect(geometry["coordinates"] as? [Double] == [places[0].lng, places[0].lat])
            let properties = try #require(feature["properties"] as? [String: Any])
            #expect(properties["name"] as? String == "P0")
            #expect(
                Set(properties.keys).isSuperset(of: ["category", "source", "review_count", "rating_avg", "created_at"]))

            // Under the bound: exact on every page.
            let filtered = try await client.ogcWalk("/ogc/collections/places/items?limit=4&bbox=17,9,21,11")
            let inBox = places.filter { $0.lat >= 9 && $0.lat <= 11 && $0.lng >= 17 && $0.lng <= 21 }.map(\.id)
            #expect(filtered.ids == inBox.sorted())
            #expect(filtered.pages.allSatisfy { $0.numberMatched == inBox.count })
            // The default page: 100.
            let all = try await client.ogcPage("/ogc/collections/places/items")
            #expect(all.ids == expected && all.link("next") == nil)
        }
    }

    @Test(
        "boxes across the antimeridian and at the poles find exactly the places a brute force finds",
        arguments: StoreEngine.available)
    func boxes(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        var generator = SeededGenerator(seed: 7)
        var drafts: [PlaceDraft] = []
        for index in 0..<300 {
            // Crowded near the antimeridian and the poles, and some anywhere.
            let lat: Double
            let lng: Double
            switch index % 3 {
            case 0:
                (lat, lng) = (
                    Double.random(in: -60...60, using: &generator), Double.random(in: 170...180, using: &generator)
                )
            case 1:
                (lat, lng) = (
                    Double.random(in: 80...90, using: &generator), Double.random(in: -180...180, using: &generator)
                )
            default:
                (lat, lng) = (
                    Double.random(in: -90...90, using: &generator), Double.random(in: -180...180, using: &generator)
                )
            }
            drafts.append(PlaceDraft(name: "B\(index)", lat: lat, lng: index % 7 == 0 ? -lng : lng))
        }
        drafts += [
            PlaceDraft(name: "North pole", lat: 90, lng: 0), PlaceDraft(name: "South pole", lat: -90, lng: 45),
            PlaceDraft(name: "On the line", lat: 0, lng: 180), PlaceDraft(name: "Other side", lat: 0, lng: -180),
        ]
        let places = try await environment.insert(drafts)
        try await environment.withClient { client in
            for box in [
                FeatureBox(west: 175, south: -30, east: -175, north: 30),
                FeatureBox(west: 179.9, south: -90, east: -179.9, north: 90),
                FeatureBox(west: -180, south: 85, east: 180, north: 90),
                FeatureBox(west: -10, south: -90, east: 100, north: -60),
                FeatureBox(west: 170, south: 80, east: -170, north: 90),
                FeatureBox(west: -180, south: -90, east: 180, north: 90),
            ] {
                let query = "bbox=\(box.west),\(box.south),\(box.east),\(box.north)"
                let walk = try await client.ogcWalk("/ogc/collections/places/items?limit=37&\(query)")
                let expected = places.filter { box.contains(lat: $0.lat, lng: $0.lng) }.map(\.id).sorted()
                #expect(walk.ids == expected, "\(query)")
                #expect(walk.pages.first?.numberMatched == expected.count, "\(query)")
            }
        }
    }

    @Test("queryables filter by equality, alone and with a box", arguments: StoreEngine.available)
    func filters(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(
            (0..<30).map { (index: Int) -> PlaceDraft in
                let category = index % 3 == 0 ? "burger" : "pizza"
                let source: String? = index % 2 == 0 ? "osm" : nil
                return PlaceDraft(
                    name: "F\(index)", lat: Double(index), lng: Double(index), category: category, source: source)
            })
        try await environment.withClient { client in
            let burgers = try await client.ogcWalk("/ogc/collections/places/items?category=burger&limit=3")
            #expect(burgers.ids == places.filter { $0.category == "burger" }.map(\.id))
            let osmBurgers = try await client.ogcWalk("/ogc/collections/places/items?category=burger&source=osm")
            #expect(osmBurgers.ids == places.filter { $0.category == "burger" && $0.source == "osm" }.map(\.id))
            #expect(osmBurgers.pages.first?.numberMatched == 5)
            let boxed = try await client.ogcWalk("/ogc/collections/places/items?source=osm&bbox=4.5,4.5,12.5,12.5")
            #expect(boxed.ids == places.filter { $0.source == "osm" && (5...12).contains($0.lat) }.map(\.id))
            let none = try await client.ogcPage("/ogc/collections/places/items?category=sushi")
            #expect(none.status == .ok && none.ids.isEmpty && none.numberMatched == 0 && none.link("next") == nil)
            // A filter changes the list: a cursor of another filter is refused.
            let page = try await client.ogcPage("/ogc/collections/places/items?category=burger&limit=2")
            let next = try #require(page.link("next"))
            let foreign = try await client.execute(
                uri: try OGCItemsTests.swapped(next, "category=burger", "category=pizza"), method: .get)
            #expect(foreign.status == .badRequest)
            #expect(try ogcProblem(foreign).code == "invalid_cursor")
        }
    }

    @Test("invalid parameters are 400 problem documents naming the parameter", arguments: StoreEngine.available)
    func validation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.insert((0..<3).map { PlaceDraft(name: "V\($0)", lat: 1, lng: Double($0)) })
        try await environment.withClient { client in
            for (query, field, code) in [
                ("limit=0", "limit", "out_of_range"), ("limit=10001", "limit", "out_of_range"),
                ("limit=ten", "limit", "not_an_integer"), ("bbox=1,2,3", "bbox", "malformed"),
                ("bbox=1,2,0,3,4,5", "bbox", "three_dimensions"), ("bbox=0,10,1,5", "bbox", "out_of_range"),
                ("bbox=-181,0,1,1", "bbox", "out_of_range"),
                ("bbox-crs=EPSG:4326&bbox=0,0,1,1", "bbox-crs", "unsupported_crs"),
                ("color=red", "color", "unknown_parameter"), ("place_id=1", "place_id", "unknown_parameter"),
                ("f=html", "f", "unsupported"), ("category=", "category", "empty"),
            ] {
                let response = try await client.execute(uri: "/ogc/collections/places/items?\(query)", method: .get)
                #expect(response.status == .badRequest, "\(query)")
                let problem = try ogcProblem(response)
                #expect(problem.code == "validation_failed", "\(query)")
                #expect(problem.fields == [field], "\(query)")
                #expect(problem.fieldCodes == [code], "\(query)")
            }
            for query in ["rating=6", "rating=0", "category=burger", "place_id=0"] {
                let response = try await client.execute(uri: "/ogc/collections/reviews/items?\(query)", method: .get)
                #expect(response.status == .badRequest, "\(query)")
            }
            // A cursor edited by the client, or of another list.
            let page = try await client.ogcPage("/ogc/collections/places/items?limit=1")
            let next = try #require(page.link("next"))
            let cursor = try #require(URLComponents(string: next)?.queryItems?.first { $0.name == "cursor" }?.value)
            for tampered in ["X" + cursor.dropFirst(), "garbage", ""] {
                let response = try await client.execute(
                    uri: "/ogc/collections/places/items?limit=1&cursor=\(tampered)", method: .get)
                #expect(response.status == .badRequest)
                #expect(try ogcProblem(response).code == "invalid_cursor")
            }
            let foreign = try await client.execute(uri: "/ogc/collections/reviews/items?cursor=\(cursor)", method: .get)
            #expect(foreign.status == .badRequest)
            #expect(try ogcProblem(foreign).code == "invalid_cursor")
            // `limit` alone may change; `f=json` answers the same document as application/json.
            let json = try await client.ogcPage(try OGCItemsTests.swapped(next, "limit=1", "limit=2") + "&f=json")
            #expect(
                json.status == .ok && json.ids.count == 2 && json.contentType?.hasPrefix("application/json") == true)
        }
    }

    @Test("one feature by id; a missing one is 404", arguments: StoreEngine.available)
    func single(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let place = try #require(try await environment.insert([PlaceDraft(name: "Solo", lat: 37.5, lng: 127)]).first)
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/ogc/collections/places/items/\(place.id)", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/geo+json")
            let feature = try json(response)
            #expect((feature["id"] as? NSNumber)?.int64Value == place.id)
            #expect((feature["properties"] as? [String: Any])?["name"] as? String == "Solo")
            let links = try #require(feature["links"] as? [[String: Any]])
            #expect(links.map { $0["rel"] as? String } == ["self", "collection"])
            for missing in ["\(place.id + 1)", "0", "abc", "-1"] {
                let response = try await client.execute(uri: "/ogc/collections/places/items/\(missing)", method: .get)
                #expect(response.status == .notFound, "\(missing)")
                #expect(try ogcProblem(response).code == "not_found")
            }
        }
    }

    /// The path and query of `href` with `old` replaced by `new`, which must be there.
    static func swapped(_ href: String, _ old: String, _ new: String) throws -> String {
        #expect(href.contains(old))
        return try ogcPathAndQuery(href.replacingOccurrences(of: old, with: new))
    }
}

@Suite("OGC API – Features: datetime")
struct OGCDateTimeTests {
    @Test("datetime filters on created_at: instants, closed and open intervals", arguments: StoreEngine.available)
    func datetime(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert((0..<4).map { PlaceDraft(name: "T\($0)", lat: 1, lng: Double($0)) })
        // Each place added on a day of its own: 2026-05-01 + index days, at 10:30 UTC.
        let may1 = OGCDateTime.daysFromCivil(year: 2026, month: 5, day: 1) * 86_400_000 + 37_800_000
        for (index, place) in places.enumerated() {
            try await environment.execute(
                "UPDATE places SET created_at = \(may1 + Int64(index) * 86_400_000) WHERE id = \(place.id)")
        }
        let ids = places.map(\.id)
        try await environment.withClient { client in
            for (datetime, expected) in [
                ("2026-05-02", [ids[1]]), ("2026-05-02T10:30:00Z", [ids[1]]), ("2026-05-02T10Z", [ids[1]]),
                ("2026-05-02T12:30:00%2B02:00", [ids[1]]), ("2026-05-02T/..", Array(ids[1...])),
                // A `+` written as is reads as a space (form encoding) and still names the offset.
                ("2026-05-02T12:30:00+02:00", [ids[1]]), ("2026-05-02T12:30:00%2002:00", [ids[1]]),
                ("../2026-05-02", Array(ids[...1])), ("2026-05-02T00:00:00Z/2026-05-03T10:29:59Z", [ids[1]]),
                ("2026-05-02/2026-05-03", [ids[1], ids[2]]), ("../..", ids), ("2026-06-01", []),
            ] {
                let walk = try await client.ogcWalk("/ogc/collections/places/items?datetime=\(datetime)&limit=2")
                #expect(walk.ids == expected, "\(datetime)")
            }
            for bad in ["yesterday", "2026-13-01", "2026-02-30", "2026-05-02T25Z", "2026-05-03/2026-05-01", "a/b/c"] {
                let response = try await client.execute(
                    uri: "/ogc/collections/places/items?datetime=\(bad)", method: .get)
                #expect(response.status == .badRequest, "\(bad)")
                #expect(try ogcProblem(response).fields == ["datetime"], "\(bad)")
            }
        }
    }
}

@Suite("OGC API – Features: the feature store")
struct OGCFeatureStoreTests {
    @Test(
        "a box read from the spatial index and the same box walked on the primary key give the same pages",
        arguments: StoreEngine.available)
    func indexAndWalk(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        var generator = SeededGenerator(seed: 11)
        let places = try await environment.insert(
            (0..<200).map { index in
                PlaceDraft(
                    name: "W\(index)", lat: Double.random(in: -89...89, using: &generator),
                    lng: Double.random(in: -180...180, using: &generator), category: index % 2 == 0 ? "burger" : nil)
            })
        for box in [
            FeatureBox(west: 90, south: -60, east: -90, north: 60),
            FeatureBox(west: -180, south: 0, east: 180, north: 90),
            FeatureBox(west: -20, south: -20, east: 20, north: 20),
        ] {
            let expected = places.filter { box.contains(lat: $0.lat, lng: $0.lng) && $0.category == "burger" }
                .map(\.id)
            // 0 candidates allowed: every box is walked; 4,096: every box here is read from the index.
            for cap in [0, FeatureBounds.indexCandidates] {
                var ids: [Int64] = []
                var after: Int64?
                repeat {
                    let page = try await environment.stores.features.placeFeatures(
                        PlaceFeatureQuery(
                            box: box, category: "burger",
                            paging: FeaturePaging(limit: 7, after: after, indexCandidates: cap)))
                    #expect(page.numberMatched == expected.count)
                    ids += page.items.map(\.id)
                    after = page.next
                } while after != nil
                #expect(ids == expected, "\(box) \(cap)")
                let reviews = try await environment.stores.features.reviewFeatures(
                    ReviewFeatureQuery(box: box, paging: FeaturePaging(limit: 7, indexCandidates: cap)))
                #expect(reviews.items.isEmpty && reviews.numberMatched == 0)
            }
        }
    }
}
