import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Vector tiles kept in memory yet always current: tags, `304`, gzip, and the events that make
/// the cache forget exactly the tiles they change, on both engines.
@Suite("Vector tile cache")
struct TileCacheTests {
    @Test(
        "a tile has a strong tag per encoding, 304 on If-None-Match, gzip once for clients that ask",
        arguments: StoreEngine.available)
    func tagsAndEncodings(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.insert(
            (0..<40).map { PlaceDraft(name: "G\($0)", lat: 37.5 + Double($0) * 0.001, lng: 127) })
        try await environment.withTileClient { client, tiles in
            let address = TileAddress.holding(key: PlaceCells.key(lat: 37.5, lng: 127), at: 10)
            let (plain, plainTile) = try await client.tile(address)
            #expect(plain.status == .ok && plainTile.count == 40)
            let tag = try #require(plain.headers[.eTag])
            #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"))
            #expect(plain.headers[.vary] == "Accept-Encoding")
            #expect(plain.headers[.cacheControl] == "public, max-age=0, must-revalidate")
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(tiles.cacheUsage.tiles == 1)

            let gzip = try await client.execute(
                uri: "/tiles/\(address.z)/\(address.x)/\(address.y).mvt", method: .get,
                headers: [.acceptEncoding: "gzip, deflate"])
            #expect(gzip.status == .ok && gzip.headers[.contentEncoding] == "gzip")
            let gzipTag = try #require(gzip.headers[.eTag])
            #expect(gzipTag != tag && !gzipTag.hasPrefix("W/"))
            var compressed = gzip.body
            let inflated = try compressed.decompress(with: .gzip())
            #expect(inflated == plain.body)

            let notModified = try await client.execute(
                uri: "/tiles/\(address.z)/\(address.x)/\(address.y).mvt", method: .get, headers: [.ifNoneMatch: tag])
            #expect(notModified.status == .notModified && notModified.body.readableBytes == 0)
            #expect(notModified.headers[.eTag] == tag)
            // The identity tag does not validate the gzipped representation.
            let other = try await client.execute(
                uri: "/tiles/\(address.z)/\(address.x)/\(address.y).mvt", method: .get,
                headers: [.ifNoneMatch: tag, .acceptEncoding: "gzip"])
            #expect(other.status == .ok)
            #expect(tiles.cacheUsage.tiles == 1)
        }
    }

    @Test(
        "a place created, moved, reviewed or removed changes exactly the tiles that hold it, at every zoom",
        arguments: StoreEngine.available)
    func exactInvalidation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.insert(ClusterTests.drafts(seed: 5))
        try await environment.withTileClient { client, tiles in
            let alice = try await client.member("alice")
            // Tiles around Seoul and Tokyo at several zooms, and the world.
            let watched: [TileAddress] = [0, 3, 8, 13, 17, 20].flatMap { zoom in
                [(37.55, 126.98), (37.5, 127.0), (35.0, 139.0), (-19.5, 179.8)].map { position in
                    TileAddress.holding(key: PlaceCells.key(lat: position.0, lng: position.1), at: zoom)
                }
            }
            func tags() async throws -> [TileAddress: String] {
                var tags: [TileAddress: String] = [:]
                for address in Set(watched) {
                    tags[address] = try #require(try await client.tile(address).response.headers[.eTag])
                }
                return tags
            }
            func holding(_ lat: Double, _ lng: Double) -> Set<TileAddress> {
                Set(watched.filter { $0 == TileAddress.holding(key: PlaceCells.key(lat: lat, lng: lng), at: $0.z) })
            }
            func expectChanged(
                _ before: [TileAddress: String], _ after: [TileAddress: String], _ changed: Set<TileAddress>,
                unsure: Set<TileAddress> = []
            ) {
                for address in Set(watched).subtracting(unsure) {
                    if changed.contains(address) {
                        #expect(before[address] != after[address], "\(address) should have changed")
                    } else {
                        #expect(before[address] == after[address], "\(address) should have kept its tag")
                    }
                }
            }
            try await tiles.catchUp()
            var before = try await tags()
            let kept = tiles.cacheUsage.tiles
            #expect(kept == Set(watched).count)

            // A new place: every zoom's tile at its position, and nothing else.
            let created = try await client.send(
                .post, "/v1/places", json: ["name": "New Tile Burger", "lat": 37.5, "lng": 127.0], token: alice.token)
            let id = try #require((try json(created)["id"] as? NSNumber)?.int64Value)
            // Before the event is handled the kept tiles are served: the cache answers alone.
            #expect(try await tags() == before)
            try await tiles.catchUp()
            #expect(tiles.cacheUsage.tiles == kept - holding(37.5, 127.0).count)
            var after = try await tags()
            expectChanged(before, after, holding(37.5, 127.0))
            let world = try await client.tile(TileAddress(z: 0, x: 0, y: 0)!)
            #expect(world.tile.count == ClusterTests.drafts(seed: 5).count + 1)

            // Moved to Tokyo: the tiles of both positions are forgotten. A tile holding both
            // keeps its count; its bytes change only if the mean position moves by a unit.
            before = after
            let moved = try await client.send(
                .patch, "/v1/places/\(id)", json: ["lat": 35.0, "lng": 139.0], token: alice.token)
            #expect(moved.status == .ok)
            try await tiles.catchUp()
            let (old, new) = (holding(37.5, 127.0), holding(35.0, 139.0))
            #expect(tiles.cacheUsage.tiles == kept - old.union(new).count)
            after = try await tags()
            expectChanged(before, after, old.symmetricDifference(new), unsure: old.intersection(new))

            // A review changes its rating and count: the tile where the place shows alone
            // changes; where it is one of a cluster's places, the tile's bytes stay the same
            // and so does its tag, though it was built anew.
            before = after
            #expect(try await client.postReview(place: id, rating: "3", token: alice.token).status == .created)
            try await tiles.catchUp()
            #expect(tiles.cacheUsage.tiles == kept - holding(35.0, 139.0).count)
            after = try await tags()
            let zoom20 = TileAddress.holding(key: PlaceCells.key(lat: 35.0, lng: 139.0), at: 20)
            #expect(before[zoom20] == after[zoom20], "40 places share that point: a cluster even at zoom 20")
            let alone = try await client.tile(TileAddress.holding(key: PlaceCells.key(lat: 35.0, lng: 139.0), at: 20))
            #expect(alone.tile.count == 41)

            // Removed (it has a review, so through a fresh place): its tiles again.
            let other = try await client.send(
                .post, "/v1/places", json: ["name": "Gone Burger", "lat": -19.5, "lng": 179.8], token: alice.token)
            let otherID = try #require((try json(other)["id"] as? NSNumber)?.int64Value)
            try await tiles.catchUp()
            before = try await tags()
            let reviewedAlone = try await client.tile(
                TileAddress.holding(key: PlaceCells.key(lat: -19.5, lng: 179.8), at: 20))
            #expect(reviewedAlone.tile.placeIDs == [otherID])
            #expect(try await client.send(.delete, "/v1/places/\(otherID)", token: alice.token).status == .noContent)
            try await tiles.catchUp()
            after = try await tags()
            expectChanged(before, after, holding(-19.5, 179.8))
        }
    }

    @Test(
        "an import that adds and moves places changes the tiles of their new and old positions",
        arguments: StoreEngine.available)
    func importInvalidation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.insert([PlaceDraft(name: "Seed", lat: 10, lng: 10)])
        let first = try environment.file(
            "first.csv",
            """
            name,lat,lng,external_id
            North,37.6,127.1,n
            South,37.4,126.9,s
            """)
        _ = try await environment.load(first, source: "city")
        try await environment.withTileClient { client, tiles in
            let watched = [2, 9, 16, 20].flatMap { zoom in
                [(37.6, 127.1), (37.4, 126.9), (33.0, 130.0), (10.0, 10.0)].map {
                    TileAddress.holding(key: PlaceCells.key(lat: $0.0, lng: $0.1), at: zoom)
                }
            }
            try await tiles.catchUp()
            var before: [TileAddress: String] = [:]
            for address in watched { before[address] = try await client.tile(address).response.headers[.eTag] }
            // South moves to Kyushu.
            let second = try environment.file(
                "second.csv",
                """
                name,lat,lng,external_id
                North,37.6,127.1,n
                South,33.0,130.0,s
                """)
            _ = try await environment.load(second, source: "city")
            try await tiles.catchUp()
            for address in watched {
                let tag = try await client.tile(address).response.headers[.eTag]
                let changes = [(37.4, 126.9), (33.0, 130.0)].contains {
                    address == TileAddress.holding(key: PlaceCells.key(lat: $0.0, lng: $0.1), at: address.z)
                }
                #expect((tag != before[address]) == changes, "\(address)")
            }
        }
    }
}
