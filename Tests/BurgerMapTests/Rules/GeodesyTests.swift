import CGeoIndex
import Testing

@testable import BurgerMapCore

@Suite("Distances on the contract's sphere")
struct GeodesyTests {
    @Test("the core's haversine equals the C search code's bit for bit: random points, the poles, the antimeridian")
    func sameBits() {
        var random = SeededGenerator(seed: 35)
        var pairs: [(Double, Double, Double, Double)] = [
            (90, 0, -90, 0), (90, 10, 89.999, -170), (-90, 0, -89.5, 180), (0, 179.9999, 0, -179.9999),
            (37.5, 127, 37.5, 127), (0, 0, 0, 180), (10, -180, -10, 180), (51.5, -0.12, 40.7, -74.0),
        ]
        for _ in 0..<20_000 {
            let lat = Double.random(in: -90...90, using: &random)
            let lng = Double.random(in: -180...180, using: &random)
            // Near pairs (metres apart) as well as far ones.
            let near = Bool.random(using: &random)
            let spread = near ? 0.001 : 180
            pairs.append(
                (
                    lat, lng, min(90, max(-90, lat + Double.random(in: -spread...spread, using: &random))),
                    lng + Double.random(in: -spread...spread, using: &random)
                ))
        }
        var differing = 0
        for (lat1, lng1, lat2, lng2) in pairs
        where Geodesy.distanceM(lat1, lng1, lat2, lng2).bitPattern != bm_haversine_m(lat1, lng1, lat2, lng2).bitPattern
        {
            differing += 1
        }
        #expect(differing == 0)
        #expect(Geodesy.earthRadiusM == BM_EARTH_RADIUS_M)
        // A quarter of the equator.
        #expect(abs(Geodesy.distanceM(0, 0, 0, 90) - .pi / 2 * 6_371_008.8) < 1e-6)
    }
}
