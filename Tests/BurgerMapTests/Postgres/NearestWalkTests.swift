import CGeoIndex
import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres

/// The bounds that let the PostgreSQL engine's nearby search stop a planar walk of the geometry
/// index, checked against the contract's haversine on random pairs everywhere on the globe
/// (poles and the antimeridian included), without a database.
@Suite("Nearby on PostgreSQL: the planar walk's bounds")
struct NearestWalkTests {
    /// A point within `radiusM` of (lat, lng) and its haversine distance, spread evenly over the
    /// cap's bounding box in latitude and longitude (rejected when outside the cap).
    static func pointInCap(lat: Double, lng: Double, radiusM: Double, using random: inout SeededGenerator)
        -> (lat: Double, lng: Double, distanceM: Double)
    {
        let span = radiusM / BM_EARTH_RADIUS_M * 180 / .pi
        while true {
            let pointLat = max(-90, min(90, lat + Double.random(in: -span...span, using: &random)))
            let widen = min(180, span / max(1e-9, cos(min(89.999, abs(lat) + span) * .pi / 180)))
            var pointLng = lng + Double.random(in: -widen...widen, using: &random)
            if pointLng > 180 { pointLng -= 360 }
            if pointLng < -180 { pointLng += 360 }
            let distance = bm_haversine_m(lat, lng, pointLat, pointLng)
            if distance <= radiusM { return (pointLat, pointLng, distance) }
        }
    }

    @Test("a place within the radius is never nearer than the bound for its planar distance, nor skipped")
    func boundsHold() {
        var random = SeededGenerator(seed: 7)
        let spots: [(lat: Double, lng: Double)] = [
            (37.5, 127), (0, 179.9999), (0.3, -179.8), (89.7, 10), (-89.99, -170), (90, 0), (75, 180), (-60, -180),
        ]
        var checked = 0
        for round in 0..<4_000 {
            let spot = spots[round % spots.count]
            let lat = max(-90, min(90, spot.lat + Double.random(in: -0.3...0.3, using: &random)))
            let lng = spot.lng
            let radius = [50.0, 2_000, 20_000, 50_000][round % 4]
            let walks = PostgresNearestWalk.walks(lat: lat, lng: lng, radiusM: radius)
            for _ in 0..<50 {
                let place = Self.pointInCap(lat: lat, lng: lng, radiusM: radius, using: &random)
                // The walks hand a place out at the nearer of their planar distances.
                let (walk, planar) = walks.map { ($0, $0.planarDistance(lat: place.lat, lng: place.lng)) }
                    .min { $0.1 < $1.1 }!
                #expect(planar <= walk.maxPlanar, "\(place) from \(lat),\(lng) r=\(radius)")
                #expect(walks[0].lowerBound(planar: planar) <= place.distanceM, "\(place) from \(lat),\(lng)")
                #expect(walk.skipBelow(distanceM: place.distanceM) <= planar, "\(place) from \(lat),\(lng)")
                checked += 1
            }
        }
        #expect(checked == 200_000)
    }

    @Test("the bound is tight enough to stop: at 37.5° a place 1 km away is bounded above 300 m")
    func boundIsUseful() throws {
        let walk = try #require(PostgresNearestWalk.walks(lat: 37.5, lng: 127, radiusM: 2_000).first)
        let planar = 1_000 / BM_EARTH_RADIUS_M * 180 / .pi
        #expect(walk.lowerBound(planar: planar) > 300)
        #expect(PostgresNearestWalk.walks(lat: 37.5, lng: 127, radiusM: 2_000).count == 1)
        #expect(PostgresNearestWalk.walks(lat: 0, lng: 179.99, radiusM: 2_000).count == 2)
        #expect(PostgresNearestWalk.walks(lat: 89.99, lng: 0, radiusM: 2_000).map(\.target) == [.pole(north: true)])
    }
}
