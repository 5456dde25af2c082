import Foundation

/// Distances on the contract's sphere: a mean Earth radius of 6,371,008.8 m and the haversine
/// formula. Every distance the service answers or ranks by is this one. The engines' C search
/// code (`bm_haversine_m` in CGeoIndex, which runs once per R*Tree cell and may not call back
/// into Swift) computes it with the same operations in the same order, bit for bit
/// (`GeodesyTests` compares the two on random points, the poles and the antimeridian).
public enum Geodesy {
    /// The contract's mean Earth radius, in metres.
    public static let earthRadiusM = 6_371_008.8

    /// The great-circle distance in metres between two WGS 84 points.
    @inlinable
    public static func distanceM(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        let degree = Double.pi / 180
        let (lat1, lng1, lat2, lng2) = (lat1 * degree, lng1 * degree, lat2 * degree, lng2 * degree)
        let sinLat = sin((lat2 - lat1) * 0.5)
        let sinLng = sin((lng2 - lng1) * 0.5)
        var a = sinLat * sinLat + cos(lat1) * cos(lat2) * sinLng * sinLng
        if a > 1 { a = 1 }
        return 2 * earthRadiusM * asin(a.squareRoot())
    }
}
