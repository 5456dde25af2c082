import BurgerMap
import BurgerMapCore
import CGeoIndex
import Foundation
import Testing

/// The nearest-first search is exact only if the C bounds that order and prune R*Tree cells are
/// true bounds: the lower bound never above, the upper bound never below, the distance to any
/// point of the cell. Checked against an independent haversine at points along each box's edges
/// and inside it, for boxes of every size, at the poles and next to the antimeridian.
@Suite("Distance bounds of R*Tree cells")
struct DistanceBoundsTests {
    /// Great-circle distance in metres (the contract's radius), written independently of the C code.
    func haversine(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        let radians = Double.pi / 180
        let a =
            pow(sin((lat2 - lat1) * radians / 2), 2)
            + cos(lat1 * radians) * cos(lat2 * radians) * pow(sin((lng2 - lng1) * radians / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(a)))
    }

    struct Box {
        var minLat, maxLat, minLng, maxLng: Double

        /// Points on the edges (where the extremes lie unless the box holds the point or its
        /// antipode) and on a grid inside.
        var samples: [(lat: Double, lng: Double)] {
            let steps = 60
            var points: [(Double, Double)] = []
            for i in 0...steps {
                let t = Double(i) / Double(steps)
                let lat = minLat + (maxLat - minLat) * t
                let lng = minLng + (maxLng - minLng) * t
                points += [(lat, minLng), (lat, maxLng), (minLat, lng), (maxLat, lng)]
                if i % 6 == 0 {
                    for j in stride(from: 0, through: steps, by: 6) {
                        points.append((lat, minLng + (maxLng - minLng) * Double(j) / Double(steps)))
                    }
                }
            }
            return points
        }
    }

    /// A box of about `size` degrees somewhere around `(lat, lng)`, clamped to the valid ranges.
    func randomBox(near lat: Double, _ lng: Double, size: Double, using random: inout SeededGenerator) -> Box {
        let centreLat = max(-90, min(90, lat + Double.random(in: -3 * size...3 * size, using: &random)))
        let centreLng = max(-180, min(180, lng + Double.random(in: -3 * size...3 * size, using: &random)))
        let halfLat = size * Double.random(in: 0.1...1, using: &random) / 2
        let halfLng = size * Double.random(in: 0.1...1, using: &random) / 2
        return Box(
            minLat: max(-90, centreLat - halfLat), maxLat: min(90, centreLat + halfLat),
            minLng: max(-180, centreLng - halfLng), maxLng: min(180, centreLng + halfLng))
    }

    @Test("lower ≤ distance to every point of the box ≤ upper, for boxes of every size and place")
    func boundsHold() {
        var random = SeededGenerator(seed: 4242)
        let spots: [(Double, Double)] = [
            (37.5665, 126.978), (90, 0), (-90, 0), (89.99, 170), (-89.9, -45), (0, 179.9999), (0.5, -179.9999),
            (0, 0), (-33.9, 18.4), (64.1, -21.9),
        ]
        let sizes = [1e-5, 1e-3, 0.05, 1, 10, 60, 170]
        for (lat, lng) in spots {
            for size in sizes {
                for _ in 0..<12 {
                    let box = randomBox(near: lat, lng, size: size, using: &random)
                    // The query point near the spot, or anywhere on Earth.
                    let queryLat = Bool.random(using: &random) ? lat : Double.random(in: -90...90, using: &random)
                    let queryLng = Bool.random(using: &random) ? lng : Double.random(in: -180...180, using: &random)
                    let lower = bm_box_score_m(queryLat, queryLng, box.minLat, box.maxLat, box.minLng, box.maxLng)
                    let upper = bm_box_max_distance_m(
                        queryLat, queryLng, box.minLat, box.maxLat, box.minLng, box.maxLng)
                    let distances = box.samples.map { haversine(queryLat, queryLng, $0.lat, $0.lng) }
                    let nearest = distances.min()!
                    let farthest = distances.max()!
                    #expect(
                        lower <= nearest + 1e-6, "lower \(lower) > \(nearest) for \(box) from \(queryLat),\(queryLng)")
                    #expect(
                        upper >= farthest - 1e-6, "upper \(upper) < \(farthest) for \(box) from \(queryLat),\(queryLng)"
                    )
                }
            }
        }
    }

    @Test("a leaf cell (a point rounded outwards to 32-bit floats) is bounded within its own size")
    func leafCellsAreTight() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<500 {
            let lat = Double.random(in: -80...80, using: &random)
            let lng = Double.random(in: -179...179, using: &random)
            let pointLat = lat + Double.random(in: -0.02...0.02, using: &random)
            let pointLng = lng + Double.random(in: -0.02...0.02, using: &random)
            // The R*Tree stores each coordinate rounded outwards to Float: a box at most one
            // float step (up to 1.7 m) wide.
            func below(_ value: Double) -> Double {
                let single = Float(value)
                return Double(Double(single) > value ? single.nextDown : single)
            }
            func above(_ value: Double) -> Double {
                let single = Float(value)
                return Double(Double(single) < value ? single.nextUp : single)
            }
            let (minLat, maxLat) = (below(pointLat), above(pointLat))
            let (minLng, maxLng) = (below(pointLng), above(pointLng))
            let lower = bm_box_score_m(lat, lng, minLat, maxLat, minLng, maxLng)
            let upper = bm_box_max_distance_m(lat, lng, minLat, maxLat, minLng, maxLng)
            let exact = haversine(lat, lng, pointLat, pointLng)
            let diagonal = haversine(minLat, minLng, maxLat, maxLng)
            #expect(lower <= exact && exact <= upper)
            // Bounds cannot be closer than the box is wide; the search stays fast while they are
            // not much wider (a few cm here, from the bounds' simplifications).
            #expect(upper - lower <= diagonal + 0.25, "bounds \(lower)…\(upper), box \(diagonal) m")
        }
    }
}
