import BurgerMap
import BurgerMapCore
import Foundation
import HummingbirdTesting
import Testing

/// Clustered map views (`GET /v1/places/clusters`) against brute force, on both engines.
@Suite("Map clusters")
struct ClusterTests {
    /// Places where clusters are hard: a dense block (so that cells keep rows at many levels),
    /// both sides of the antimeridian, both poles, one point holding many places, and the rest
    /// of the world.
    static func drafts(seed: UInt64) -> [PlaceDraft] {
        var random = SeededGenerator(seed: seed)
        var drafts: [PlaceDraft] = []
        func add(_ lat: Double, _ lng: Double) {
            drafts.append(PlaceDraft(name: "P\(drafts.count)", lat: lat, lng: lng))
        }
        for _ in 0..<400 {
            add(
                37.55 + Double.random(in: -0.02...0.02, using: &random),
                126.98 + Double.random(in: -0.03...0.03, using: &random))
        }
        for _ in 0..<80 {
            let lng = Double.random(in: -0.6...0.6, using: &random)
            add(Double.random(in: -20...(-19), using: &random), lng < 0 ? 180 + lng : -180 + lng)
        }
        for _ in 0..<40 {
            add(Double.random(in: 84.9...90, using: &random), Double.random(in: -180...180, using: &random))
            add(Double.random(in: -90...(-84.9), using: &random), Double.random(in: -180...180, using: &random))
        }
        for _ in 0..<40 { add(35, 139) }
        add(0, 180)
        add(0, -180)
        for _ in 0..<80 {
            add(Double.random(in: -90...90, using: &random), Double.random(in: -180...180, using: &random))
        }
        return drafts
    }

    /// A random view around one of the places, of a random size for its zoom (up to six times
    /// a screen's width, so that some views are too big for their zoom), sometimes across the
    /// antimeridian.
    static func view(around places: [Place], using random: inout SeededGenerator)
        -> (west: Double, south: Double, east: Double, north: Double, zoom: Int)
    {
        let zoom = Int.random(in: 0...20, using: &random)
        let centre = places.randomElement(using: &random)!
        let width = min(360, 360 / pow(2, Double(zoom)) * Double.random(in: 0.3...6, using: &random))
        let height = min(180, width * Double.random(in: 0.3...1, using: &random))
        var west = centre.lng - width / 2
        var east = centre.lng + width / 2
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        if width >= 360 { (west, east) = (-180, 180) }
        let south = max(-90, centre.lat - height / 2)
        let north = min(90, centre.lat + height / 2)
        return (west, south, east, north, zoom)
    }

    /// Every place, as the reference sees them.
    static func allPlaces(_ store: any PlaceStore) async throws -> [Place] {
        try await store.placesInViewport(ViewportQuery(west: -180, south: -90, east: 180, north: 90, limit: 2000)).items
    }

    static func checkViews(
        _ store: any PlaceStore, count: Int, seed: UInt64, reviewedOnly: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let everything = try await allPlaces(store)
        let counted = reviewedOnly ? everything.filter { $0.reviewCount > 0 } : everything
        var random = SeededGenerator(seed: seed)
        for _ in 0..<count {
            let view = view(around: everything, using: &random)
            let result = try await store.clusters(
                ClusterQuery(
                    west: view.west, south: view.south, east: view.east, north: view.north, zoom: view.zoom,
                    reviewedOnly: reviewedOnly))
            ClusterReference.expect(
                result, places: counted, west: view.west, south: view.south, east: view.east, north: view.north,
                zoom: view.zoom, sourceLocation: sourceLocation)
        }
        // The whole world at every zoom.
        for zoom in [0, 2, 5, 9] {
            let result = try await store.clusters(
                ClusterQuery(west: -180, south: -90, east: 180, north: 90, zoom: zoom, reviewedOnly: reviewedOnly))
            ClusterReference.expect(
                result, places: counted, west: -180, south: -90, east: 180, north: 90, zoom: zoom,
                sourceLocation: sourceLocation)
            #expect(result.count == counted.count, sourceLocation: sourceLocation)
        }
    }

    @Test("cluster counts, centres, bounds and expansion zooms equal brute force", arguments: StoreEngine.available)
    func bruteForce(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(Self.drafts(seed: 7))
        for place in places.prefix(300) where place.id % 3 == 0 {
            try await environment.setReviews(placeID: place.id, count: 2, ratingSum: 8)
        }
        try await Self.checkViews(environment.stores.places, count: 150, seed: 11)
        try await Self.checkViews(environment.stores.places, count: 60, seed: 12, reviewedOnly: true)
    }

    @Test(
        "clusters stay exact as places are added, moved, deleted, reviewed and imported",
        arguments: StoreEngine.available)
    func writes(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let store = environment.stores.places
        let places = try await environment.insert(Self.drafts(seed: 21))
        let user = try await environment.makeUser("mapper")
        var random = SeededGenerator(seed: 22)
        var added: [Place] = []
        for _ in 0..<40 {
            let draft = PlaceDraft(
                name: "New", lat: 37.55 + Double.random(in: -0.02...0.02, using: &random),
                lng: 126.98 + Double.random(in: -0.03...0.03, using: &random))
            added.append(try await store.createPlace(draft, by: user).place)
        }
        try await Self.checkViews(store, count: 40, seed: 23)
        // Moves across the block, to the other side of the world and onto the edges of cells;
        // deletes take places out of cells that then fall below the row threshold.
        for (index, place) in added.enumerated() {
            if index % 2 == 0 {
                let edit =
                    index % 4 == 0
                    ? PlaceEdit(lat: -place.lat, lng: place.lng - 180) : PlaceEdit(lat: place.lat + 0.01)
                _ = try await store.updatePlace(id: place.id, by: user, edit, at: .now())
            } else {
                _ = try await store.deletePlace(id: place.id, by: user)
            }
        }
        try await Self.checkViews(store, count: 40, seed: 24)
        // Reviews come and go: the reviewed counts follow.
        for place in places.prefix(400) where place.id % 2 == 0 {
            try await environment.setReviews(placeID: place.id, count: 1, ratingSum: 5)
        }
        for place in places.prefix(400) where place.id % 4 == 0 {
            try await environment.setReviews(placeID: place.id, count: 0, ratingSum: 0)
        }
        try await Self.checkViews(store, count: 40, seed: 25, reviewedOnly: true)
        // A small import follows each place; a large one rebuilds the rows.
        var small = "name,lat,lng,id\n"
        for index in 0..<3 { small += "Imported \(index),37.56,126.99\(index),s\(index)\n" }
        _ = try await environment.load(try environment.file("small.csv", small), source: "small")
        try await Self.checkViews(store, count: 30, seed: 26)
        var large = "name,lat,lng,id\n"
        for index in 0..<200 {
            large +=
                "Big \(index),\(37.5 + Double(index % 20) * 0.004),\(126.9 + Double(index / 20) * 0.01),b\(index)\n"
        }
        _ = try await environment.load(try environment.file("large.csv", large), source: "large")
        try await Self.checkViews(store, count: 30, seed: 27)
        _ = try await store.removePlaceSource("large")
        try await Self.checkViews(store, count: 30, seed: 28)
    }

    @Test(
        "the route answers clusters and places as JSON and GeoJSON, and refuses bad views",
        arguments: StoreEngine.available)
    func route(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        var drafts = (0..<5).map { PlaceDraft(name: "Block \($0)", lat: 37.5 + Double($0) * 0.0001, lng: 127) }
        drafts.append(PlaceDraft(name: "Alone", lat: 37.6, lng: 127.2))
        let places = try await environment.insert(drafts)
        try await environment.withClient { client in
            let path = "/v1/places/clusters?bbox=126.9,37.4,127.3,37.7&zoom=10"
            let response = try await client.send(.get, path)
            #expect(response.status == .ok)
            let body = try json(response)
            #expect(body["zoom"] as? Int == 10 && body["count"] as? Int == 6)
            let items = try #require(body["items"] as? [[String: Any]])
            // North first: the lone place, then the block's cluster.
            #expect(items.map { $0["type"] as? String } == ["place", "cluster"])
            #expect((items[0]["place"] as? [String: Any])?["id"] as? Int64 == places[5].id)
            let cluster = items[1]
            #expect(cluster["count"] as? Int == 5)
            #expect(abs((cluster["lat"] as! Double) - 37.5002) < 1e-9 && cluster["lng"] as? Double == 127)
            #expect((cluster["bounds"] as? [Double]) == [127, 37.5, 127, 37.5004])
            #expect(
                cluster["expansion_zoom"] as? Int
                    == ClusterReference.expansionZoom(
                        ClusterReference.Group(
                            ids: [], lats: (0..<5).map { 37.5 + Double($0) * 0.0001 },
                            lngs: Array(repeating: 127, count: 5)),
                        after: 10))
            let geo = try await client.execute(uri: path, method: .get, headers: [.accept: "application/geo+json"])
            #expect(geo.headers[.contentType] == "application/geo+json")
            let collection = try json(geo)
            let features = try #require(collection["features"] as? [[String: Any]])
            #expect(collection["count"] as? Int == 6 && features.count == 2)
            let properties = features[1]["properties"] as? [String: Any]
            #expect(properties?["cluster"] as? Bool == true && properties?["count"] as? Int == 5)
            #expect((features[1]["bbox"] as? [Double]) == [127, 37.5, 127, 37.5004])
            #expect(((features[0]["geometry"] as? [String: Any])?["coordinates"] as? [Double]) == [127.2, 37.6])
            #expect((features[0]["properties"] as? [String: Any])?["name"] as? String == "Alone")
            // A box across most of the world and the antimeridian at a street zoom is cut on
            // coarse cells (the contract check once found it listing a million columns).
            let wide = try await client.send(
                .get, "/v1/places/clusters?bbox=-0.0000001,-70.3,-118.4,30.5&zoom=20&reviewed_only=true&format=geojson")
            #expect(wide.status == .ok)
            let wideBody = try json(wide)
            #expect(wideBody["zoom"] as? Int == 20 && wideBody["count"] as? Int == 0)
            let world = try json(try await client.send(.get, "/v1/places/clusters?bbox=-180,-90,180,90&zoom=20"))
            #expect(world["count"] as? Int == 6 && (world["items"] as? [Any])?.count == 1)
            // Zoom missing, not a whole number or out of range; a bad box: problem documents.
            for (query, field, code) in [
                ("bbox=126.9,37.4,127.3,37.7", "zoom", "required"),
                ("bbox=126.9,37.4,127.3,37.7&zoom=1.5", "zoom", "not_an_integer"),
                ("bbox=126.9,37.4,127.3,37.7&zoom=21", "zoom", "out_of_range"),
                ("bbox=126.9,37.4,127.3,37.7&zoom=-1", "zoom", "out_of_range"),
                ("zoom=3", "bbox", "required"),
                ("bbox=1,2,3&zoom=3", "bbox", "malformed"),
                ("bbox=0,50,10,40&zoom=3", "bbox", "out_of_range"),
                ("bbox=0,40,10,50&zoom=3&reviewed_only=maybe", "reviewed_only", "not_a_boolean"),
            ] {
                let bad = try await client.send(.get, "/v1/places/clusters?" + query)
                #expect(bad.status == .badRequest, "\(query)")
                let errors = try json(bad)["errors"] as? [[String: Any]]
                #expect(
                    errors?.first?["field"] as? String == field && errors?.first?["code"] as? String == code, "\(query)"
                )
            }
        }
    }
}

/// The sample dataset, loaded as an operator would (a first load builds the rows in one pass).
@Suite("Map clusters on the sample places")
struct ClusterSampleTests {
    @Test("views of the imported sample places equal brute force", arguments: StoreEngine.available)
    func sample(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../data/sample-places.csv")
        _ = try await environment.load(sample.standardizedFileURL)
        let store = environment.stores.places
        let places = try await ClusterTests.allPlaces(store)
        #expect(places.count == 2000)
        for zoom in 8...16 {
            let box = (126.95612, 37.491204, 127.114048, 37.580637)
            let result = try await store.clusters(
                ClusterQuery(west: box.0, south: box.1, east: box.2, north: box.3, zoom: zoom))
            ClusterReference.expect(
                result, places: places, west: box.0, south: box.1, east: box.2, north: box.3, zoom: zoom)
        }
        try await ClusterTests.checkViews(store, count: 60, seed: 31)
    }
}
