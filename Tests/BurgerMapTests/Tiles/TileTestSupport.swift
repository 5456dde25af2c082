import BurgerMap
import BurgerMapCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

extension TestEnvironment {
    /// Runs `body` against the router with the tile services it serves from, so that a test can
    /// hand the cache the events written so far (`TileServices.catchUp`), as the invalidator of
    /// a running service does after each write.
    func withTileClient(
        _ body: @escaping @Sendable (any TestClientProtocol, TileServices) async throws -> Void
    ) async throws {
        let dependencies = try await buildDependencies(configuration, stores: stores, media: media)
        let app = Application(router: buildRouter(dependencies), logger: Logger(label: "burgermap-tests"))
        try await app.test(.router) { client in try await body(client, dependencies.tiles) }
    }
}

extension TestClientProtocol {
    /// One tile: the answer and its decoded layers (none for `204`).
    func tile(_ address: TileAddress, query: String = "", headers: HTTPFields = [:]) async throws -> (
        response: TestResponse, tile: DecodedTile
    ) {
        let response = try await execute(
            uri: "/tiles/\(address.z)/\(address.x)/\(address.y).mvt\(query)", method: .get, headers: headers)
        let bytes = Array(response.body.readableBytesView)
        return (response, response.status == .ok ? try DecodedTile(bytes) : try DecodedTile([]))
    }
}

extension DecodedTile {
    /// The places a tile counts: its clusters' counts plus its single places.
    var count: Int {
        let clusters = layers["clusters"]?.features ?? []
        return clusters.reduce(layers["places"]?.features.count ?? 0) { total, feature in
            total + Int(feature.properties["count"]?.number ?? 0)
        }
    }

    /// The ids of its single places.
    var placeIDs: Set<Int64> {
        Set(
            (layers["places"]?.features ?? []).compactMap { feature in
                feature.properties["id"]?.number.map { Int64($0) }
            })
    }
}

/// The tiles of a zoom and the places each holds, by the places' stored keys: the brute force
/// the tiles are checked against.
func placesByTile(_ places: [Place], zoom: Int) -> [TileAddress: [Place]] {
    Dictionary(grouping: places) { TileAddress.holding(key: PlaceCells.key(lat: $0.lat, lng: $0.lng), at: zoom) }
}
