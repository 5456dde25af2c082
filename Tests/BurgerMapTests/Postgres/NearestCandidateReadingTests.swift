import Foundation
import PostgresNIO
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres

/// What the PostgreSQL nearby search works out in the client instead of on the server: each
/// candidate's planar distance, against PostGIS's own `<->`, and the cells it reads straight
/// from their bytes, against the values PostgreSQL sends.
@Suite("Nearby on PostgreSQL: candidates read in the client")
struct NearestCandidateReadingTests {
    @Test(
        "the planar distance worked out in the client is PostGIS's <-> to the last bits, at poles and the antimeridian")
    func planarDistanceIsPostGIS() async throws {
        var random = SeededGenerator(seed: 11)
        // Each spot's walks: one around a point, two across the antimeridian (one shifted by
        // 360°), or one from a pole's line.
        let spots: [(lat: Double, lng: Double, radiusM: Double)] = [
            (37.5665, 126.978, 2_000), (0.2, 179.99, 50_000), (-12, -179.95, 20_000), (89.9, 45, 30_000),
            (-89.95, -120, 20_000),
        ]
        let cases = spots.flatMap { spot in
            PostgresNearestWalk.walks(lat: spot.lat, lng: spot.lng, radiusM: spot.radiusM).map { walk in
                (
                    walk,
                    (0..<200).map { _ in
                        NearestWalkTests.pointInCap(lat: spot.lat, lng: spot.lng, radiusM: spot.radiusM, using: &random)
                    }
                )
            }
        }
        // Two walks for each spot across the antimeridian, one from each pole's line.
        #expect(cases.count == 7)
        #expect(cases.filter { $0.0.target == .pole(north: true) }.count == 1)
        try await withPostgresEngine { engine in
            for (walk, places) in cases {
                let rows = try await engine.pool.query(
                    """
                    SELECT ST_SetSRID(ST_MakePoint(p.lng, p.lat), 4326) <-> \(walk.target)::geometry
                    FROM unnest(\(places.map(\.lat))::float8[], \(places.map(\.lng))::float8[])
                        WITH ORDINALITY AS p(lat, lng, n)
                    ORDER BY n
                    """)
                var index = 0
                for try await postgis in rows.decode(Double.self) {
                    let place = places[index]
                    let ours = walk.planarDistance(lat: place.lat, lng: place.lng)
                    // The bounds give away 1e-9 of the distance (`PostgresNearestWalk.slack`).
                    #expect(
                        abs(ours - postgis) <= 1e-13 * max(1, postgis),
                        "\(place) from \(walk.target): \(ours) against PostGIS's \(postgis)")
                    index += 1
                }
                #expect(index == places.count)
            }
        }
    }

    @Test("cells read from their bytes are the values PostgreSQL sends; another type is decoded or refused")
    func cellsFromTheirBytes() async throws {
        try await withPostgresEngine { engine in
            let rows = try await engine.pool.query(
                """
                SELECT 37.5665::float8, '-0'::float8, '-Infinity'::float8, 9223372036854775807::int8,
                    NULL::int8, 42::int4, 'seven'::text
                """)
            for try await row in rows {
                let cells = Array(row)
                #expect(try cells[0].float8() == 37.5665)
                #expect(try cells[1].float8().sign == .minus)
                #expect(try cells[2].float8() == -.infinity)
                #expect(try cells[3].int8OrNull() == .max)
                #expect(try cells[4].int8OrNull() == nil)
                // Not an int8: PostgresNIO's decoding takes over.
                #expect(try cells[5].int8OrNull() == 42)
                #expect(throws: PostgresDecodingError.self) { try cells[6].float8() }
            }
        }
    }
}
