import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import Testing

@testable import BurgerMapSQLite

/// The nearby search against a brute-force great-circle computation over every stored place.
@Suite("Nearby search is exact")
struct NearbySearchTests {
    /// Places clustered around awkward spots: a city, both poles, both sides of the antimeridian,
    /// and the equator at longitude 0.
    static let centres: [(lat: Double, lng: Double)] = [
        (37.5665, 126.978), (89.9, 0), (-89.95, 45), (0.2, 179.999), (-0.1, -179.995), (0, 0), (71.2, -179.9),
    ]

    func seed(_ environment: TestEnvironment) async throws -> [Place] {
        var random = SeededGenerator(seed: 2026)
        var drafts: [PlaceDraft] = []
        for centre in Self.centres {
            for index in 0..<120 {
                // Within about ±30 km, clamped to valid ranges and wrapped across ±180.
                let lat = max(-90, min(90, centre.lat + Double.random(in: -0.3...0.3, using: &random)))
                var lng = centre.lng + Double.random(in: -0.3...0.3, using: &random)
                if lng > 180 { lng -= 360 }
                if lng < -180 { lng += 360 }
                drafts.append(PlaceDraft(name: "P\(index)", lat: lat, lng: lng))
            }
            // Exact duplicates of a position, to exercise the tie-break on id.
            drafts.append(PlaceDraft(name: "Twin A", lat: centre.lat, lng: centre.lng))
            drafts.append(PlaceDraft(name: "Twin B", lat: centre.lat, lng: centre.lng))
        }
        return try await environment.insert(drafts)
    }

    @Test("set and order equal brute force across pages, near poles and the antimeridian")
    func matchesBruteForce() async throws {
        let environment = try TestEnvironment()
        let places = try await seed(environment)
        var random = SeededGenerator(seed: 99)
        for round in 0..<60 {
            let centre = Self.centres[round % Self.centres.count]
            let lat = max(-90, min(90, centre.lat + Double.random(in: -0.2...0.2, using: &random)))
            var lng = centre.lng + Double.random(in: -0.2...0.2, using: &random)
            if lng > 180 { lng -= 360 }
            if lng < -180 { lng += 360 }
            let radius = [500.0, 5_000, 20_000, 50_000][round % 4]
            let limit = [1, 7, 20, 100][round % 4]
            let expected = bruteForceNearest(places.map { ($0.id, $0.lat, $0.lng) }, lat: lat, lng: lng, radius: radius)
            let found = try await environment.database.allNearbyPages(
                NearbyQuery(lat: lat, lng: lng, radiusM: radius, limit: limit))
            #expect(found.map(\.place.id) == expected.map(\.id), "query \(round) at \(lat),\(lng) r=\(radius)")
            for (item, reference) in zip(found, expected) {
                #expect(abs(item.distanceM - reference.distance) < 0.01)
            }
        }
    }

    @Test("a search exactly on a pole finds places at every longitude")
    func northPole() async throws {
        let environment = try TestEnvironment()
        let places = try await environment.insert(
            stride(from: -180.0, to: 180, by: 45).map { PlaceDraft(name: "Ring \($0)", lat: 89.99, lng: $0) })
        let page = try await environment.database.nearbyPlaces(NearbyQuery(lat: 90, lng: 0, radiusM: 2000, limit: 100))
        #expect(Set(page.items.map(\.place.id)) == Set(places.map(\.id)))
        #expect(page.items.allSatisfy { abs($0.distanceM - 1111.95) < 1 })
    }

    @Test("filters keep nearest-first order and drop the rest")
    func categoryFilter() async throws {
        let environment = try TestEnvironment()
        let places = try await environment.insert(
            (0..<30).map {
                PlaceDraft(
                    name: "F\($0)", lat: 10 + Double($0) * 0.001, lng: 10, category: $0 % 3 == 0 ? "burger" : "pizza")
            })
        let page = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 10, lng: 10, radiusM: 50_000, limit: 100, category: "burger"))
        #expect(page.items.map(\.place.id) == places.enumerated().filter { $0.offset % 3 == 0 }.map(\.element.id))
        let reviewed = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 10, lng: 10, radiusM: 50_000, limit: 100, reviewedOnly: true))
        #expect(reviewed.items.isEmpty)
    }
}

@Suite("Nearby search on a bulk-loaded index")
struct BulkLoadedNearbyTests {
    @Test("an import packs the R*Tree; it checks out and searches on it equal brute force")
    func afterImport() async throws {
        let environment = try TestEnvironment()
        var random = SeededGenerator(seed: 7)
        var csv = "id,name,lat,lng\n"
        for index in 0..<4000 {
            // A dense cluster crossing the antimeridian, plus a spread of far-away places.
            let lat =
                index % 10 == 0
                ? Double.random(in: -80...80, using: &random) : Double.random(in: -1...1, using: &random)
            var lng =
                index % 10 == 0
                ? Double.random(in: -180...180, using: &random) : 180 + Double.random(in: -1...1, using: &random)
            if lng > 180 { lng -= 360 }
            csv += "\(index),Place \(index),\(lat),\(lng)\n"
        }
        let summary = try PlaceImport(database: environment.database).run(file: try environment.file("bulk.csv", csv))
        #expect(summary.inserted == 4000)
        let (check, points) = try await environment.database.pool.write { db in
            (
                try String.fetchOne(db, sql: "SELECT rtreecheck('idx_places_geom')"),
                try Row.fetchAll(db, sql: "SELECT id, lat, lng FROM places").map {
                    (id: $0[0] as Int64, lat: $0[1] as Double, lng: $0[2] as Double)
                }
            )
        }
        #expect(check == "ok")
        for round in 0..<40 {
            let lat = Double.random(in: -1...1, using: &random)
            let lng = round % 2 == 0 ? 179.9 : -179.9
            let radius = [300.0, 3_000, 30_000, 50_000][round % 4]
            let expected = bruteForceNearest(points, lat: lat, lng: lng, radius: radius).prefix(60)
            var query = NearbyQuery(lat: lat, lng: lng, radiusM: radius, limit: 20)
            var found: [Int64] = []
            while found.count < 60 {
                let page = try await environment.database.nearbyPlaces(query)
                found += page.items.map(\.place.id)
                guard page.hasMore, let last = page.items.last else { break }
                query.after = NearbyKey(distanceM: last.distanceM, id: last.place.id)
            }
            #expect(Array(found.prefix(60)) == expected.map(\.id), "round \(round)")
        }
    }
}
