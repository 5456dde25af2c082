import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The same checks on every engine: nearby searches equal brute force (set, order, pages,
/// filters, poles, antimeridian), viewports likewise.
@Suite("Place stores answer alike: searches")
struct PlaceStoreSearchTests {
    /// Places clustered around awkward spots: a city, both poles, both sides of the antimeridian,
    /// and the equator at longitude 0.
    static let centres: [(lat: Double, lng: Double)] = [
        (37.5665, 126.978), (89.9, 0), (-89.95, 45), (0.2, 179.999), (-0.1, -179.995), (0, 0), (71.2, -179.9),
    ]

    /// A point within `spread` degrees of a centre, clamped and wrapped into valid ranges.
    static func point(near centre: (lat: Double, lng: Double), spread: Double, using random: inout SeededGenerator)
        -> (lat: Double, lng: Double)
    {
        let lat = max(-90, min(90, centre.lat + Double.random(in: -spread...spread, using: &random)))
        var lng = centre.lng + Double.random(in: -spread...spread, using: &random)
        if lng > 180 { lng -= 360 }
        if lng < -180 { lng += 360 }
        return (lat, lng)
    }

    /// Seeds the clusters, with categories and reviews on some places; answers the stored places.
    static func seed(_ harness: any StoreHarness) async throws -> [Place] {
        var random = SeededGenerator(seed: 2026)
        var drafts: [PlaceDraft] = []
        for centre in centres {
            for index in 0..<120 {
                let point = point(near: centre, spread: 0.3, using: &random)
                drafts.append(
                    PlaceDraft(
                        name: "P\(index)", lat: point.lat, lng: point.lng,
                        category: ["burger", "pizza", nil][Int.random(in: 0..<3, using: &random)]))
            }
            // Exact duplicates of a position, to exercise the tie-break on id.
            drafts.append(PlaceDraft(name: "Twin A", lat: centre.lat, lng: centre.lng, category: "burger"))
            drafts.append(PlaceDraft(name: "Twin B", lat: centre.lat, lng: centre.lng, category: "burger"))
        }
        var places = try await harness.insert(drafts)
        for index in places.indices where Int.random(in: 0..<3, using: &random) == 0 {
            let count = Int.random(in: 1...9, using: &random)
            let sum = (0..<count).reduce(0) { sum, _ in sum + Int.random(in: 1...5, using: &random) }
            try await harness.setReviews(placeID: places[index].id, count: count, ratingSum: sum)
            places[index].reviewCount = count
            places[index].ratingAvg = Double(sum) / Double(count)
        }
        return places
    }

    @Test(
        "nearby: set and order equal brute force across pages and filters, near poles and the antimeridian",
        arguments: StoreEngine.available)
    func nearbyMatchesBruteForce(engine: StoreEngine) async throws {
        try await withStore(engine) { harness in
            let places = try await Self.seed(harness)
            var random = SeededGenerator(seed: 99)
            for round in 0..<84 {
                let centre = Self.centres[round % Self.centres.count]
                let (lat, lng) = Self.point(near: centre, spread: 0.2, using: &random)
                let radius = [500.0, 5_000, 20_000, 50_000][round % 4]
                var query = NearbyQuery(lat: lat, lng: lng, radiusM: radius, limit: [1, 7, 20, 100][(round / 4) % 4])
                // Every third round filters: reviewed only, a least rating, or a category.
                switch round % 9 {
                case 3: query.reviewedOnly = true
                case 6: query.minRating = 3.5
                case 8: query.category = "burger"
                default: break
                }
                let kept = places.filter { place in
                    (!query.reviewedOnly || place.reviewCount > 0)
                        && query.minRating.map { place.reviewCount > 0 && place.ratingAvg! >= $0 } ?? true
                        && query.category.map { place.category == $0 } ?? true
                }
                let expected = bruteForceNearest(
                    kept.map { ($0.id, $0.lat, $0.lng) }, lat: lat, lng: lng, radius: radius)
                let found = try await harness.store.allNearbyPages(query)
                #expect(found.map(\.place.id) == expected.map(\.id), "query \(round) at \(lat),\(lng) r=\(radius)")
                for (item, reference) in zip(found, expected) {
                    #expect(abs(item.distanceM - reference.distance) < 0.01)
                }
            }
        }
    }

    @Test("nearby: a search exactly on a pole finds places at every longitude", arguments: StoreEngine.available)
    func northPole(engine: StoreEngine) async throws {
        try await withStore(engine) { harness in
            let places = try await harness.insert(
                stride(from: -180.0, to: 180, by: 45).map { PlaceDraft(name: "Ring \($0)", lat: 89.99, lng: $0) })
            let page = try await harness.store.nearbyPlaces(NearbyQuery(lat: 90, lng: 0, radiusM: 2000, limit: 100))
            // The ring's distances differ in their last bits: the order is the haversine's, which
            // the engines-agree test checks.
            #expect(Set(page.items.map(\.place.id)) == Set(places.map(\.id)))
            #expect(page.items.allSatisfy { abs($0.distanceM - 1111.95) < 1 })
        }
    }

    @Test(
        "nearby: across a pole, the nearest place comes first where a flat distance would rank it fourth",
        arguments: StoreEngine.available)
    func acrossThePole(engine: StoreEngine) async throws {
        try await withStore(engine) { harness in
            // 1,668 m away over the pole; the three on the searcher's meridian are 1,757-1,779 m
            // away, but nearer by any flat distance in degrees (an approximation that ranks
            // candidates so would put the nearest fourth).
            let places = try await harness.insert([
                PlaceDraft(name: "Over the pole", lat: 89.995, lng: 180),
                PlaceDraft(name: "South 3", lat: 89.974, lng: 0),
                PlaceDraft(name: "South 2", lat: 89.9741, lng: 0),
                PlaceDraft(name: "South 1", lat: 89.9742, lng: 0),
            ])
            for limit in [1, 2, 4] {
                let page = try await harness.store.nearbyPlaces(
                    NearbyQuery(lat: 89.99, lng: 0, radiusM: 2000, limit: limit))
                #expect(
                    page.items.map(\.place.name)
                        == ["Over the pole", "South 1", "South 2", "South 3"].prefix(limit).map { $0 })
                #expect(
                    page.items.first.map { abs($0.distanceM - 1667.9) < 1 } == true,
                    "\(page.items.first?.distanceM ?? 0)")
                #expect(page.items.map(\.place.id).first == places[0].id)
                #expect(page.hasMore == (limit < 4))
            }
        }
    }

    @Test(
        "viewport: most-reviewed first, truncated past the limit, across the antimeridian",
        arguments: StoreEngine.available)
    func viewportMatchesBruteForce(engine: StoreEngine) async throws {
        try await withStore(engine) { harness in
            let places = try await Self.seed(harness)
            var random = SeededGenerator(seed: 5)
            for round in 0..<42 {
                let centre = Self.centres[round % Self.centres.count]
                let (lat, lng) = Self.point(near: centre, spread: 0.2, using: &random)
                let half = [0.05, 0.2, 0.5][round % 3]
                var (west, east) = (lng - half, lng + half)
                if west < -180 { west += 360 }
                if east > 180 { east -= 360 }
                let query = ViewportQuery(
                    west: west, south: max(-90, lat - half), east: east, north: min(90, lat + half),
                    limit: [5, 50, 500][(round / 3) % 3])
                let inside = places.filter { place in
                    place.lat >= query.south && place.lat <= query.north
                        && query.longitudeSpans.contains { $0.contains(place.lng) }
                }
                .sorted { ($1.reviewCount, $0.id) < ($0.reviewCount, $1.id) }
                let result = try await harness.store.placesInViewport(query)
                #expect(result.items.map(\.id) == inside.prefix(query.limit).map(\.id), "viewport \(round): \(query)")
                #expect(result.truncated == (inside.count > query.limit))
            }
        }
    }
}
