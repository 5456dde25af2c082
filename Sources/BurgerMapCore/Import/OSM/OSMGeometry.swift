import Foundation

/// A position in degrees.
struct OSMPoint: Equatable {
    var lat: Double
    var lon: Double
}

/// Where a map pin goes for an area (a closed way, or a multipolygon's largest outer ring and its
/// holes), and how member ways join into rings.
///
/// Planar geometry in longitude/latitude: places are buildings and plots a few hundred metres
/// wide at most, over which the distortion of treating degrees as a plane moves a centroid by far
/// less than the outline's own accuracy.
enum OSMGeometry {
    /// Below this (square degrees, about 0.06 m² at the equator) a ring has no area: the smallest
    /// real triangle on the 1e-7° grid of OSM coordinates has 5e-15, and the rounding noise of
    /// collinear points stays far below it.
    static let degenerateArea = 1e-15

    /// The pin for an area: the centroid of `outer` when it lies inside the area, otherwise the
    /// middle of the widest stretch of the area along the centroid's latitude (a U-shaped
    /// building's centroid falls between its arms). Rings are closed (first point == last point).
    /// A ring without area (all nodes on a line) gets the mean of its nodes.
    static func position(outer: [OSMPoint], holes: [[OSMPoint]] = []) -> OSMPoint {
        // Longitudes are unwrapped relative to the first node, so a ring that crosses the
        // antimeridian (179.9°, -179.9°) stays a small ring instead of one around the globe.
        let reference = outer.first?.lon ?? 0
        let ring = unwrapped(outer, around: reference)
        let holes = holes.map { unwrapped($0, around: reference) }
        guard let center = centroid(ring) else { return normalized(mean(ring)) }
        let rings = [ring] + holes
        if contains(center, rings) { return normalized(center) }
        return normalized(widestSpanMiddle(latitude: center.lat, rings) ?? center)
    }

    /// The area in square degrees, longitudes unwrapped relative to the first node.
    static func area(_ ring: [OSMPoint]) -> Double {
        let ring = unwrapped(ring, around: ring.first?.lon ?? 0)
        return abs(signedDoubleArea(ring)) / 2
    }

    /// Whether `point` is inside `ring` (even-odd; the rings share one unwrapping reference).
    static func inside(_ point: OSMPoint, _ ring: [OSMPoint], reference: Double) -> Bool {
        contains(unwrapped([point], around: reference)[0], [unwrapped(ring, around: reference)])
    }

    private static func unwrapped(_ ring: [OSMPoint], around reference: Double) -> [OSMPoint] {
        // `remainder`, not a loop: a hostile file's longitude of 1e300 must not spin.
        ring.map { OSMPoint(lat: $0.lat, lon: reference + remainder($0.lon - reference, 360)) }
    }

    private static func normalized(_ point: OSMPoint) -> OSMPoint {
        OSMPoint(lat: point.lat, lon: remainder(point.lon, 360))
    }

    /// Shoelace sum relative to the first point (coordinates near 127° would otherwise lose
    /// digits in the products of a 20 m outline).
    private static func signedDoubleArea(_ ring: [OSMPoint]) -> Double {
        guard let origin = ring.first, ring.count > 2 else { return 0 }
        var sum = 0.0
        for index in 0..<(ring.count - 1) {
            let a = ring[index]
            let b = ring[index + 1]
            sum += (a.lon - origin.lon) * (b.lat - origin.lat) - (b.lon - origin.lon) * (a.lat - origin.lat)
        }
        return sum
    }

    private static func centroid(_ ring: [OSMPoint]) -> OSMPoint? {
        guard let origin = ring.first, ring.count >= 4 else { return nil }
        var doubleArea = 0.0
        var x = 0.0
        var y = 0.0
        for index in 0..<(ring.count - 1) {
            let ax = ring[index].lon - origin.lon
            let ay = ring[index].lat - origin.lat
            let bx = ring[index + 1].lon - origin.lon
            let by = ring[index + 1].lat - origin.lat
            let cross = ax * by - bx * ay
            doubleArea += cross
            x += (ax + bx) * cross
            y += (ay + by) * cross
        }
        guard abs(doubleArea) / 2 >= degenerateArea else { return nil }
        return OSMPoint(lat: origin.lat + y / (3 * doubleArea), lon: origin.lon + x / (3 * doubleArea))
    }

    /// The mean of a closed ring's nodes (the closing repeat left out).
    private static func mean(_ ring: [OSMPoint]) -> OSMPoint {
        let points = ring.count > 1 && ring.first == ring.last ? ring.dropLast() : ring[...]
        guard !points.isEmpty else { return OSMPoint(lat: .nan, lon: .nan) }
        let count = Double(points.count)
        return OSMPoint(
            lat: points.reduce(0) { $0 + $1.lat } / count, lon: points.reduce(0) { $0 + $1.lon } / count)
    }

    /// The longitudes at which the rings' edges cross `latitude`, half-open at each edge's upper
    /// end so that a vertex on the line is counted once.
    private static func crossings(latitude: Double, _ rings: [[OSMPoint]]) -> [Double] {
        var result: [Double] = []
        for ring in rings where ring.count > 1 {
            for index in 0..<(ring.count - 1) {
                let a = ring[index]
                let b = ring[index + 1]
                guard (a.lat > latitude) != (b.lat > latitude) else { continue }
                result.append(a.lon + (latitude - a.lat) * (b.lon - a.lon) / (b.lat - a.lat))
            }
        }
        return result
    }

    private static func contains(_ point: OSMPoint, _ rings: [[OSMPoint]]) -> Bool {
        crossings(latitude: point.lat, rings).reduce(false) { $1 > point.lon ? !$0 : $0 }
    }

    private static func widestSpanMiddle(latitude: Double, _ rings: [[OSMPoint]]) -> OSMPoint? {
        let xs = crossings(latitude: latitude, rings).sorted()
        var best: (width: Double, middle: Double)?
        var index = 0
        while index + 1 < xs.count {
            let width = xs[index + 1] - xs[index]
            if best == nil || width > best!.width { best = (width, (xs[index] + xs[index + 1]) / 2) }
            index += 2
        }
        return best.map { OSMPoint(lat: latitude, lon: $0.middle) }
    }

    /// Why member ways do not make closed rings.
    struct RingProblem: Error {
        var description: String
    }

    /// Joins ways (lists of node ids, in member order) end to end, in either direction, into
    /// closed rings of node ids (first id == last id). Deterministic: each ring starts with the
    /// first unused way and continues with the first unused way that shares its open end.
    static func rings(of ways: [(id: Int64, refs: [Int64])], role: String) -> Result<[[Int64]], RingProblem> {
        var byEnd: [Int64: [Int]] = [:]
        for (index, way) in ways.enumerated() {
            guard let first = way.refs.first, let last = way.refs.last, way.refs.count >= 2 else {
                return .failure(RingProblem(description: "way \(way.id) has fewer than two nodes"))
            }
            if first == last { continue }
            byEnd[first, default: []].append(index)
            byEnd[last, default: []].append(index)
        }
        var used = [Bool](repeating: false, count: ways.count)
        var rings: [[Int64]] = []
        for start in ways.indices where !used[start] {
            used[start] = true
            var ring = ways[start].refs
            while ring.last != ring.first {
                let end = ring.last!
                guard let next = byEnd[end]?.first(where: { !used[$0] }) else {
                    return .failure(
                        RingProblem(
                            description: "its \(role) ways do not close: the ring from way \(ways[start].id) "
                                + "ends at node \(end) with no way to continue"))
                }
                used[next] = true
                let refs = ways[next].refs
                ring += refs.first == end ? refs.dropFirst() : refs.reversed().dropFirst()
            }
            rings.append(ring)
        }
        return .success(rings)
    }
}
