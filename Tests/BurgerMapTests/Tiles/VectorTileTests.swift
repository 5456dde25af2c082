import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /tiles/{z}/{x}/{y}.mvt` against brute force, on both engines.
@Suite("Vector tiles")
struct VectorTileTests {
    @Test(
        "each tile counts exactly the places of its key range, places alone are those alone in their cell, and a zoom's tiles add up to every place",
        arguments: StoreEngine.available)
    func bruteForce(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(ClusterTests.drafts(seed: 37))
        try await environment.withClient { client in
            for zoom in [0, 1, 4, 9, 14, 20] {
                var total = 0
                for (address, members) in placesByTile(places, zoom: zoom) {
                    let (response, tile) = try await client.tile(address)
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/vnd.mapbox-vector-tile")
                    #expect(tile.count == members.count, "tile \(address)")
                    total += tile.count
                    let byCell = Dictionary(grouping: members) {
                        PlaceCells.cell(of: PlaceCells.key(lat: $0.lat, lng: $0.lng), at: zoom + 2)
                    }
                    let alone = Set(byCell.values.filter { $0.count == 1 }.map { $0[0].id })
                    #expect(tile.placeIDs == alone, "tile \(address)")
                    for feature in tile.layers["places"]?.features ?? [] {
                        let place = try #require(members.first { Double($0.id) == feature.properties["id"]?.number })
                        let point = Self.projected(place.lat, place.lng, address)
                        #expect(abs(feature.x - point.x) <= 1 && abs(feature.y - point.y) <= 1)
                        #expect(feature.properties["name"] == .string(place.name))
                        #expect(feature.properties["review_count"] == .unsigned(0))
                        #expect(feature.type == 1)
                    }
                    for feature in tile.layers["clusters"]?.features ?? [] {
                        let cell = try #require(feature.id.map { Int64($0) })
                        let cluster = try #require(byCell[cell])
                        #expect(feature.properties["count"] == .unsigned(UInt64(cluster.count)))
                        let lat = cluster.map(\.lat).reduce(0, +) / Double(cluster.count)
                        let lng = cluster.map(\.lng).reduce(0, +) / Double(cluster.count)
                        let point = Self.projected(lat, lng, address)
                        #expect(abs(feature.x - point.x) <= 1 && abs(feature.y - point.y) <= 1)
                        let split = (zoom + 1..<21).first { next in
                            Set(
                                cluster.map {
                                    PlaceCells.cell(of: PlaceCells.key(lat: $0.lat, lng: $0.lng), at: next + 2)
                                }
                            )
                            .count > 1
                        }
                        #expect(feature.properties["expansion_zoom"] == split.map { .unsigned(UInt64($0)) })
                    }
                }
                #expect(total == places.count, "zoom \(zoom)")
            }
            // A tile without places.
            let (empty, _) = try await client.tile(TileAddress(z: 12, x: 100, y: 100)!)
            #expect(empty.status == .noContent)
            #expect(empty.headers[.eTag] != nil)
        }
    }

    /// Web Mercator written out apart from the service: where a position falls in a tile's
    /// 4096 units.
    static func projected(_ lat: Double, _ lng: Double, _ address: TileAddress) -> (x: Int, y: Int) {
        let limit = 85.051_128_779_806_59
        let clamped = min(max(lat, -limit), limit) * .pi / 180
        let scale = pow(2, Double(address.z)) * 4096
        let x = (lng + 180) / 360 * scale - Double(address.x) * 4096
        let y = (1 - asinh(tan(clamped)) / .pi) / 2 * scale - Double(address.y) * 4096
        return (Int(x.rounded()), Int(y.rounded()))
    }

    @Test("reviewed_only=true counts the reviewed places alone", arguments: StoreEngine.available)
    func reviewedOnly(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            var ids: [Int64] = []
            for index in 0..<5 { ids.append(try await client.addPlace("Tile \(index)", token: alice.token)) }
            for id in ids.prefix(2) {
                #expect(try await client.postReview(place: id, rating: "4", token: alice.token).status == .created)
            }
            let address = TileAddress.holding(key: PlaceCells.key(lat: 37.5, lng: 127.0), at: 20)
            let (all, allTile) = try await client.tile(address)
            #expect(all.status == .ok && allTile.count == 5)
            let (reviewed, reviewedTile) = try await client.tile(address, query: "?reviewed_only=true")
            #expect(reviewed.status == .ok && reviewedTile.count == 2)
            #expect(reviewed.headers[.eTag] != all.headers[.eTag])
        }
    }

    @Test("a zoom, column or row outside the grid is a 400 naming it", arguments: StoreEngine.available)
    func validation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            for (path, fields) in [
                ("21/0/0", ["z"]), ("-1/0/0", ["z"]), ("3/8/0", ["x"]), ("3/0/8", ["y"]), ("3/-1/9", ["x", "y"]),
                ("a/0/0", ["z"]), ("0/0/b", ["y"]), ("20/1048576/0", ["x"]),
                ("99999999999999999999/0/0", ["z"]),
            ] {
                let response = try await client.execute(uri: "/tiles/\(path).mvt", method: .get)
                #expect(response.status == .badRequest, "\(path)")
                #expect(response.headers[.contentType] == "application/problem+json")
                let body = try json(response)
                let named = (body["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
                #expect(named == fields, "\(path)")
            }
            let bad = try await client.execute(uri: "/tiles/0/0/0.mvt?reviewed_only=maybe", method: .get)
            #expect(bad.status == .badRequest)
        }
    }

    @Test("TileJSON names an absolute tile template, the zooms and both layers", arguments: StoreEngine.available)
    func tileJSON(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(
                uri: "/tiles.json?reviewed_only=true", method: .get,
                headers: [HTTPField.Name("Host")!: "maps.example:8080"])
            #expect(response.status == .ok)
            #expect(response.headers[.accessControlAllowOrigin] == "*")
            let body = try json(response)
            #expect(body["tilejson"] as? String == "3.0.0")
            #expect(
                body["tiles"] as? [String] == ["http://maps.example:8080/tiles/{z}/{x}/{y}.mvt?reviewed_only=true"])
            #expect(body["minzoom"] as? Int == 0 && body["maxzoom"] as? Int == 20)
            let layers = try #require(body["vector_layers"] as? [[String: Any]])
            #expect(layers.compactMap { $0["id"] as? String } == ["clusters", "places"])
            let fields = try #require(layers[1]["fields"] as? [String: String])
            #expect(Set(fields.keys) == ["id", "name", "category", "rating_avg", "review_count"])
            // A Host that could break out of the URL is not echoed.
            let hostile = try json(
                try await client.execute(
                    uri: "/tiles.json", method: .get, headers: [HTTPField.Name("Host")!: "evil\"/x"]))
            #expect(hostile["tiles"] as? [String] == ["http://localhost/tiles/{z}/{x}/{y}.mvt"])
        }
    }
}
