import BurgerMapCore
import Hummingbird

extension PlacesController {
    /// `GET /v1/places/clusters?bbox=west,south,east,north&zoom=Z`: the places of a map view,
    /// grouped into cells of about 64 × 64 screen pixels at zoom `Z` (0…20), each a cluster with
    /// its exact count or a single place. `reviewed_only=true` counts reviewed places only.
    @Sendable func clusters(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        let zoom = reader.int("zoom", in: ClusterQuery.zooms)
        let reviewedOnly = reader.bool("reviewed_only")
        let box = try Self.boundingBox(reader.text("bbox"))
        let format = PlaceListFormat.read(&reader, request)
        try reader.validate()
        let query = ClusterQuery(
            west: box[0], south: box[1], east: box[2], north: box[3], zoom: zoom, reviewedOnly: reviewedOnly)
        let result = try await reads.run(request, context) { try await $0.clusters(query) }
        var writer = JSONWriter(capacity: 256 + result.items.count * 300)
        if format == .geoJSON {
            writer.clusterFeatures(result)
            return writer.geoJSONResponse(headers: [.vary: "Accept"])
        }
        writer.object { writer in
            writer.key("zoom")
            writer.value(result.zoom)
            writer.key("count")
            writer.value(result.count)
            writer.key("items")
            writer.array { writer in
                for item in result.items {
                    switch item {
                    case .place(let place):
                        writer.object { writer in
                            writer.key("type")
                            writer.value("place")
                            writer.key("place")
                            place.write(to: &writer)
                        }
                    case .cluster(let cluster):
                        writer.object { writer in
                            writer.key("type")
                            writer.value("cluster")
                            cluster.writeFields(to: &writer)
                        }
                    }
                }
            }
        }
        return writer.response(headers: [.vary: "Accept"])
    }
}

extension PlaceCluster {
    /// `lat`, `lng` (the mean of its places), `count`, `bounds` (`[west, south, east, north]` of
    /// its places) and `expansion_zoom`.
    func writeFields(to writer: inout JSONWriter) {
        writer.key("lat")
        writer.value(lat)
        writer.key("lng")
        writer.value(lng)
        writer.key("count")
        writer.value(summary.count)
        writer.key("bounds")
        writeBounds(to: &writer)
        writer.key("expansion_zoom")
        if let expansionZoom { writer.value(expansionZoom) } else { writer.value(nil as Double?) }
    }

    func writeBounds(to writer: inout JSONWriter) {
        writer.array { writer in
            writer.value(summary.minLng)
            writer.value(summary.minLat)
            writer.value(summary.maxLng)
            writer.value(summary.maxLat)
        }
    }
}

extension JSONWriter {
    /// A clustered view as an RFC 7946 `FeatureCollection`: a place is a `Point` feature with the
    /// place as `properties` (as in the other place lists); a cluster is a `Point` feature at its
    /// mean position with the feature's `bbox` and `properties` `{cluster: true, count,
    /// expansion_zoom}`. The number of places in the box is the foreign member `count`.
    mutating func clusterFeatures(_ result: ClusterResult) {
        object { writer in
            writer.key("type")
            writer.value("FeatureCollection")
            writer.key("features")
            writer.array { writer in
                for item in result.items {
                    writer.object { writer in
                        writer.key("type")
                        writer.value("Feature")
                        switch item {
                        case .place(let place):
                            writer.key("id")
                            writer.value(place.id)
                            writer.point(lng: place.lng, lat: place.lat)
                            writer.key("properties")
                            place.write(to: &writer)
                        case .cluster(let cluster):
                            writer.key("bbox")
                            cluster.writeBounds(to: &writer)
                            writer.point(lng: cluster.lng, lat: cluster.lat)
                            writer.key("properties")
                            writer.object { writer in
                                writer.key("cluster")
                                writer.value(true)
                                writer.key("count")
                                writer.value(cluster.summary.count)
                                writer.key("expansion_zoom")
                                if let zoom = cluster.expansionZoom {
                                    writer.value(zoom)
                                } else {
                                    writer.value(nil as Double?)
                                }
                            }
                        }
                    }
                }
            }
            writer.key("zoom")
            writer.value(result.zoom)
            writer.key("count")
            writer.value(result.count)
        }
    }
}
