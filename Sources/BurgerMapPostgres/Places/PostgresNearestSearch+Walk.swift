import CGeoIndex
import Foundation

/// One nearest-first walk of the geometry GiST index on each place's point (`places_by_point`)
/// for a nearby search, and what its planar distances prove about the sphere.
///
/// `geometry <->` measures in degrees on the plane of (longitude, latitude), which is not the
/// contract's order, so a walk only hands out candidates; the search orders them by
/// `bm_haversine_m` and stops once no place the walk has not handed out yet can be nearer than
/// the page's last. The bounds below say how far on the sphere such a place must be.
///
/// - Around a point (the usual case). For a place within the radius, |Δlat| ≤ δ (the radius as
///   an angle) and the wrapped |Δlng| ≤ Λ (the half-width in longitude of the cap's bounding
///   box), and hav θ = hav Δlat + cos lat₀ cos lat hav Δlng. With sin(x/2) ≥ s·x/2 for
///   |x| ≤ X = max(δ, Λ) (s = sin(X/2)/(X/2)) and cos lat ≥ cos(|lat₀| + δ), that gives
///   sin(θ/2) ≥ s·√c·D/2 for the planar distance D, c = cos lat₀ · cos(|lat₀| + δ): a place
///   the walk has not reached (D ≥ the last one's) is at least that far. The other way round,
///   hav θ ≤ (Δlat² + Δlng²)/4 gives D ≥ 2 sin(θ/2), which is how far a cursor lets the walk
///   skip.
/// - Across the antimeridian the plane does not wrap: a second walk around the point shifted by
///   360° reaches the other side, and the nearer of the two planar distances is the wrapped
///   one, so the bound holds for the smaller of the two walks' last distances.
/// - A cap that holds a pole has no useful bound in longitude (every longitude is near), so
///   the walk goes by distance to the pole's line instead (90° − |lat|): a place that far out
///   is at least D − (90° − |lat₀|) from the query (the triangle through the pole).
///
/// Every bound gives away 1e-9 of the angle and 1 µm: the planar distances and the haversine
/// are computed in doubles (relative errors near 1e-16), and the cost is nil.
struct PostgresNearestWalk: Sendable {
    enum Target: Sendable, Equatable {
        /// A point, its longitude possibly shifted by ±360° for the far side of the antimeridian.
        case point(lng: Double, lat: Double)
        /// The line of latitude +90° (north) or −90°, from −180° to 180°.
        case pole(north: Bool)
    }

    let target: Target
    /// Latitude of the query, degrees.
    let lat: Double
    /// Radius of the search as an angle, radians.
    let delta: Double
    /// `s·√c` of the point bound (unused for a pole).
    let pointFactor: Double
    /// The greatest planar distance (degrees) of a place within the radius.
    let maxPlanar: Double
    /// About how many places the walk hands out for each one the page needs before the bound
    /// lets the search stop: the planar circle the bound asks for holds 1/cos(|lat₀| + δ) times
    /// the places of the cap it covers (1.26 at 37.5°). A walk from a pole's line has no such
    /// figure (it depends on how far from the pole the query is); 4 is a guess.
    var candidatesPerResult: Double {
        switch target {
        case .point: 1 / cos(min(89, abs(lat) + delta * 180 / .pi) * .pi / 180)
        case .pole: 4
        }
    }

    static let slack = 1e-9
    static let slackM = 1e-6

    /// The walks of a search around (lat, lng) within `radiusM`: one, or two across the
    /// antimeridian.
    static func walks(lat: Double, lng: Double, radiusM: Double) -> [PostgresNearestWalk] {
        let delta = radiusM / BM_EARTH_RADIUS_M * (1 + slack)
        let deltaDegrees = delta * 180 / .pi
        let reach = abs(lat) + deltaDegrees
        if reach >= 90 {
            let colatitude = 90 - abs(lat)
            return [
                PostgresNearestWalk(
                    target: .pole(north: lat >= 0), lat: lat, delta: delta, pointFactor: 0,
                    maxPlanar: (colatitude + deltaDegrees) * (1 + slack))
            ]
        }
        let latRadians = lat * .pi / 180
        let halfWidth = asin(min(1, sin(delta) / cos(latRadians)))
        let widest = max(delta, halfWidth)
        let s = sin(widest / 2) / (widest / 2)
        let c = cos(latRadians) * cos(reach * .pi / 180)
        let halfWidthDegrees = halfWidth * 180 / .pi
        let maxPlanar = (deltaDegrees * deltaDegrees + halfWidthDegrees * halfWidthDegrees).squareRoot() * (1 + slack)
        func walk(_ lng: Double) -> PostgresNearestWalk {
            PostgresNearestWalk(
                target: .point(lng: lng, lat: lat), lat: lat, delta: delta, pointFactor: s * c.squareRoot(),
                maxPlanar: maxPlanar)
        }
        guard lng - halfWidthDegrees < -180 || lng + halfWidthDegrees > 180 else { return [walk(lng)] }
        return [walk(lng), walk(lng > 0 ? lng - 360 : lng + 360)]
    }

    /// The planar distance (degrees) from the target of a place at (lat, lng): what PostGIS's
    /// `<->` orders the walk by, worked out here from the candidate's position rather than sent
    /// by the server, where it cost a PostGIS point per row. The two may differ in the last bit
    /// (the pole's line is measured through a projection there); every bound that uses it gives
    /// away far more (`slack`).
    func planarDistance(lat: Double, lng: Double) -> Double {
        switch target {
        case .point(let targetLng, let targetLat):
            let dx = lng - targetLng
            let dy = lat - targetLat
            return (dx * dx + dy * dy).squareRoot()
        case .pole(let north):
            return north ? 90 - lat : lat + 90
        }
    }

    /// The least contract distance (metres) of a place within the radius whose planar distance
    /// from the target is at least `planar` degrees.
    func lowerBound(planar: Double) -> Double {
        let radians = planar * .pi / 180
        let angle: Double
        switch target {
        case .point:
            angle = 2 * asin(min(1, pointFactor * radians / 2))
        case .pole:
            angle = radians - (90 - abs(lat)) * .pi / 180
        }
        return max(0, angle * (1 - Self.slack) * BM_EARTH_RADIUS_M - Self.slackM)
    }

    /// The least planar distance (degrees) of a place at least `distanceM` from the query:
    /// nearer ones come before a cursor at that distance and the walk can skip them.
    func skipBelow(distanceM: Double) -> Double {
        let angle = max(0, (distanceM - Self.slackM) / BM_EARTH_RADIUS_M * (1 - Self.slack))
        let planar: Double
        switch target {
        case .point:
            planar = 2 * sin(min(.pi, angle) / 2)
        case .pole:
            planar = angle - (90 - abs(lat)) * .pi / 180
        }
        return max(0, planar * 180 / .pi * (1 - Self.slack))
    }
}
