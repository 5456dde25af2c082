import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// A brute-force clustered view, written apart from the service's: every place tested against
/// the box, grouped by its Web Mercator cell at the view's level (the tile formulas as the
/// OpenStreetMap wiki gives them).
struct ClusterReference {
    struct Group: Equatable {
        var ids: [Int64] = []
        var lats: [Double] = []
        var lngs: [Double] = []
    }

    static func inside(_ place: Place, west: Double, south: Double, east: Double, north: Double) -> Bool {
        guard place.lat >= south, place.lat <= north else { return false }
        return west <= east ? (place.lng >= west && place.lng <= east) : (place.lng >= west || place.lng <= east)
    }

    /// The tile column and row of a position at `level` (rows from the north; latitudes beyond
    /// Web Mercator's limit in the first or last row).
    static func tile(lat: Double, lng: Double, level: Int) -> (column: Int, row: Int) {
        let n = Double(1 << level)
        let column = min(Int(((lng + 180) / 360 * n).rounded(.down)), (1 << level) - 1)
        let limited = min(max(lat, -85.0511287798066), 85.0511287798066) * .pi / 180
        let y = (1 - log(tan(limited) + 1 / cos(limited)) / .pi) / 2
        let row = min(max(Int((y * n).rounded(.down)), 0), (1 << level) - 1)
        return (column, row)
    }

    /// The places of the box grouped by tile at `level`.
    static func groups(
        _ places: [Place], west: Double, south: Double, east: Double, north: Double, level: Int
    ) -> [String: Group] {
        var groups: [String: Group] = [:]
        for place in places where inside(place, west: west, south: south, east: east, north: north) {
            let tile = tile(lat: place.lat, lng: place.lng, level: level)
            let key = "\(tile.column)/\(tile.row)"
            groups[key, default: Group()].ids.append(place.id)
            groups[key]!.lats.append(place.lat)
            groups[key]!.lngs.append(place.lng)
        }
        return groups
    }

    /// The first zoom after `zoom` at which a group's places fall into two 64-pixel cells.
    static func expansionZoom(_ group: Group, after zoom: Int) -> Int? {
        guard zoom < 20 else { return nil }
        for next in (zoom + 1)...20 {
            let tiles = Set(
                zip(group.lats, group.lngs).map { tile(lat: $0, lng: $1, level: next + 2) }.map { "\($0)/\($1)" })
            if tiles.count > 1 { return next }
        }
        return nil
    }

    /// Checks a clustered view against brute force over `places`.
    static func expect(
        _ result: ClusterResult, places: [Place], west: Double, south: Double, east: Double, north: Double,
        zoom: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let label = "bbox \(west),\(south),\(east),\(north) zoom \(zoom) level \(result.level)"
        #expect(result.level <= zoom + 2, "\(label)", sourceLocation: sourceLocation)
        let groups = groups(places, west: west, south: south, east: east, north: north, level: result.level)
        let total = groups.values.map(\.ids.count).reduce(0, +)
        #expect(result.count == total, "\(label)", sourceLocation: sourceLocation)
        #expect(result.items.count == groups.count, "\(label)", sourceLocation: sourceLocation)
        #expect(result.items.count <= 22 * 22, "\(label)", sourceLocation: sourceLocation)
        var seen = Set<String>()
        for item in result.items {
            switch item {
            case .place(let place):
                let tile = tile(lat: place.lat, lng: place.lng, level: result.level)
                let group = groups["\(tile.column)/\(tile.row)"]
                #expect(group?.ids == [place.id], "\(label): place \(place.id)", sourceLocation: sourceLocation)
                seen.insert("\(tile.column)/\(tile.row)")
            case .cluster(let cluster):
                let tile = tile(lat: cluster.summary.minLat, lng: cluster.summary.minLng, level: result.level)
                let key = "\(tile.column)/\(tile.row)"
                seen.insert(key)
                guard let group = groups[key] else {
                    Issue.record(
                        "\(label): a cluster at \(key) where brute force has none", sourceLocation: sourceLocation)
                    continue
                }
                #expect(cluster.summary.count == group.ids.count, "\(label) \(key)", sourceLocation: sourceLocation)
                #expect(group.ids.count > 1, "\(label) \(key)", sourceLocation: sourceLocation)
                let meanLat = group.lats.reduce(0, +) / Double(group.lats.count)
                let meanLng = group.lngs.reduce(0, +) / Double(group.lngs.count)
                #expect(
                    abs(cluster.lat - meanLat) < 1e-9 && abs(cluster.lng - meanLng) < 1e-9, "\(label) \(key)",
                    sourceLocation: sourceLocation)
                #expect(
                    [cluster.summary.minLng, cluster.summary.minLat, cluster.summary.maxLng, cluster.summary.maxLat]
                        == [group.lngs.min()!, group.lats.min()!, group.lngs.max()!, group.lats.max()!],
                    "\(label) \(key)", sourceLocation: sourceLocation)
                #expect(
                    cluster.expansionZoom == expansionZoom(group, after: zoom), "\(label) \(key)",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(seen.count == result.items.count, "\(label): two items in one cell", sourceLocation: sourceLocation)
    }
}

extension TestEnvironment {
    /// The harness of this environment's engine (users and review counts set directly).
    var harness: any StoreHarness {
        if let postgres { return PostgresHarness(engine: postgres) }
        return SQLiteHarness(environment: self)
    }

    func setReviews(placeID: Int64, count: Int, ratingSum: Int) async throws {
        try await harness.setReviews(placeID: placeID, count: count, ratingSum: ratingSum)
    }

    func makeUser(_ name: String) async throws -> Int64 {
        try await harness.makeUser(name)
    }
}
