import BurgerMap
import CGeoIndex
import Logging
import PostgresNIO

/// Exact nearest-first search on PostGIS, with the SQLite engine's answers to the bit.
///
/// PostGIS measures on a sphere of its own radius (6,371,008.7714 m, from WGS 84's axes) with
/// its own formula, and `geometry <->` would sort by degrees, so its distances never reach the
/// client. The GiST index on `geog` walks candidates nearest-first by `geog <-> point` (index
/// KNN, on the sphere); each candidate's distance is then the contract's haversine
/// (`bm_haversine_m`, the C function the SQLite engine calls), which orders the page, ties by id.
///
/// The two distances differ by a constant radius ratio (4.5e-9) and rounding: measured on
/// 200,000 random pairs up to 70 km apart, everywhere on the globe, |PostGIS - haversine|
/// stayed under 4.5e-9 of the distance plus 2e-7 m. `margin` allows 1e-7 of the distance plus
/// 1 mm, twenty times that. So a place PostGIS puts at `d` is at least `(d - 1 mm) / (1 + 1e-7)`
/// away on the contract's sphere: once the page's last place is nearer than that bound for
/// the last candidate fetched, no candidate further down the index can come before it. When
/// that does not hold yet (ties, or rounding right at the edge) the search asks for four
/// times as many candidates.
struct PostgresNearestSearch {
    let query: NearbyQuery
    let client: PostgresClient
    let logger: Logger

    /// Relative and absolute slack between PostGIS's sphere distance and the contract's.
    static let relativeMargin = 1e-7
    static let absoluteMarginM = 1e-3

    /// The least contract distance of a place PostGIS puts `d` metres away.
    static func lowerBound(pgDistance d: Double) -> Double {
        (d - absoluteMarginM) / (1 + relativeMargin)
    }

    /// The greatest PostGIS distance of a place `h` metres away on the contract's sphere.
    static func upperBound(contractDistance h: Double) -> Double {
        h * (1 + relativeMargin) + absoluteMarginM
    }

    func page() async throws -> NearbyPage {
        let count = query.limit + 1
        // A few more than the page: ties and the margin rarely need them, and asking again costs
        // a round trip.
        var fetch = count + 8
        while true {
            let (candidates, lastPG) = try await self.candidates(limit: fetch)
            var keyed: [(key: NearbyKey, place: Place)] = []
            keyed.reserveCapacity(candidates.count)
            for place in candidates {
                let key = NearbyKey(
                    distanceM: bm_haversine_m(query.lat, query.lng, place.lat, place.lng), id: place.id)
                guard key.distanceM <= query.radiusM, query.after.map({ $0 < key }) ?? true else { continue }
                keyed.append((key, place))
            }
            keyed.sort { $0.key < $1.key }
            // Every candidate not yet fetched is at least this far away (infinity: none is left).
            let unseen = candidates.count < fetch ? Double.infinity : Self.lowerBound(pgDistance: lastPG)
            if query.radiusM < unseen || (keyed.count >= count && keyed[count - 1].key.distanceM < unseen) {
                let items = keyed.prefix(query.limit).map { NearbyPlace(place: $0.place, distanceM: $0.key.distanceM) }
                return NearbyPage(items: items, hasMore: keyed.count > query.limit)
            }
            fetch *= 4
        }
    }

    /// Up to `limit` places of the search's filters within the radius (plus margin), nearest
    /// first by PostGIS's distance, and the PostGIS distance of the last one.
    private func candidates(limit: Int) async throws -> (places: [Place], lastDistance: Double) {
        let radius = Self.upperBound(contractDistance: query.radiusM)
        // Places nearer than the cursor's distance come back first otherwise and are dropped
        // here; this keeps them out of the answer (the index still walks past them).
        let after = query.after.map { $0.distanceM * (1 - Self.relativeMargin) - Self.absoluteMarginM } ?? -1
        // Bound values for every filter; a filter that is off compares a NULL or `false`, which
        // the planner folds away (postgres-nio's unnamed statements are planned with their values).
        let minRating = query.minRating
        let category = query.category
        let rows = try await client.query(
            """
            SELECT \(unescaped: PostgresPlaceStore.columns),
                geog <-> ST_SetSRID(ST_MakePoint(\(query.lng), \(query.lat)), 4326)::geography
            FROM places
            WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint(\(query.lng), \(query.lat)), 4326)::geography, \(radius), false)
              AND geog <-> ST_SetSRID(ST_MakePoint(\(query.lng), \(query.lat)), 4326)::geography >= \(after)
              AND (NOT \(query.reviewedOnly) OR review_count > 0)
              AND (\(minRating)::float8 IS NULL OR (review_count > 0 AND rating_sum >= \(minRating)::float8 * review_count))
              AND (\(category)::text IS NULL OR category = \(category)::text)
            ORDER BY geog <-> ST_SetSRID(ST_MakePoint(\(query.lng), \(query.lat)), 4326)::geography
            LIMIT \(Int64(limit))
            """, logger: logger)
        var places: [Place] = []
        var last = 0.0
        for try await row in rows {
            let row = row.makeRandomAccess()
            places.append(try PostgresPlaceStore.place(row))
            last = try row[18].decode(Double.self)
        }
        return (places, last)
    }
}
