import BurgerMapCore
import CGeoIndex
import Foundation
import Logging
import PostgresNIO

/// Exact nearest-first search on PostGIS, with the SQLite engine's answers to the bit.
///
/// The geometry GiST index on each place's point (`places_by_point`) hands out candidates nearest-first by planar
/// distance in degrees (`PostgresNearestWalk`: one walk, two across the antimeridian, or a walk from
/// the pole's line when the radius reaches a pole); each candidate's distance is then the
/// contract's haversine (`bm_haversine_m`, the C function the SQLite engine calls), which
/// orders the page, ties by id. Once the page's last place is nearer than the least distance
/// `PostgresNearestWalk` proves for every place not handed out yet, no such place can come before
/// it; until then the search asks for more candidates (twice or four times as many).
///
/// Why not the geography index and its KNN on the sphere: PostgreSQL builds a geography GiST
/// row by row (no sort support in PostGIS 3.3), 11.6 s for 1,000,000 places against 3.1 s for
/// the geometry index, which builds by sorting; that one index was most of an import's time.
/// The planar walk reads more candidates than the spherical one
/// (`PostgresNearestWalk.candidatesPerResult`: about 1.26 times the page at latitude 37.5°).
struct PostgresNearestSearch {
    let query: NearbyQuery
    let pool: PostgresPool
    let logger: Logger
    /// A further test of the place row, with `text` bound as $4: a place search walks one of
    /// its ranks this way (`PostgresSearchTiers`). Inside the walk (`inWalk`) when the rank is
    /// known to hold many places, so that the walk hands out only places of the rank; else
    /// beside the radius, as the nearby filters are (which must be off).
    var textTest: (sql: String, text: String, inWalk: Bool)? = nil

    func page() async throws -> NearbyPage {
        // Without a limit on the walk there is always a page.
        try await page(fetchingAtMost: .max)!
    }

    /// The page, or `nil` when proving it would take a walk of more than `maxFetch` candidates.
    func page(fetchingAtMost maxFetch: Int) async throws -> NearbyPage? {
        let count = query.limit + 1
        let walks = PostgresNearestWalk.walks(lat: query.lat, lng: query.lng, radiusM: query.radiusM)
        // The places the bound will likely need, and a few more (ties, chance), rounded up to a
        // LIMIT with a statement of its own (`PostgresNearestCandidates`). Asking again costs a round
        // trip, asking for too many costs the server: measured on 1,000,000 places, the walk of
        // 32 candidates took 0.22 ms, of 64 0.36 ms, of 128 1.1 ms.
        let expected = Double(count) * walks[0].candidatesPerResult + 4
        var fetch = Candidates.sizes.first { Double($0) >= expected } ?? Int(expected.rounded(.up))
        while true {
            var keyed: [(key: NearbyKey, candidate: PostgresNearestCandidate)] = []
            // Two walks (across the antimeridian) may hand out the same place.
            var seenIDs = Set<Int64>()
            // The least planar distance of a place no walk has handed out (infinity: none is left).
            var unseenPlanar = Double.infinity
            var exhausted = false
            for walk in walks {
                let (candidates, seen, last) = try await self.candidates(walk, limit: fetch)
                if seen < fetch { exhausted = true } else { unseenPlanar = min(unseenPlanar, last) }
                for candidate in candidates where walks.count == 1 || seenIDs.insert(candidate.id).inserted {
                    let key = NearbyKey(
                        distanceM: bm_haversine_m(query.lat, query.lng, candidate.lat, candidate.lng),
                        id: candidate.id)
                    guard key.distanceM <= query.radiusM, query.after.map({ $0 < key }) ?? true else { continue }
                    keyed.append((key, candidate))
                }
            }
            keyed.sort { $0.key < $1.key }
            // Every place the walks have not handed out yet is at least this far away.
            let unseen = exhausted ? Double.infinity : walks[0].lowerBound(planar: unseenPlanar)
            if query.radiusM < unseen || (keyed.count >= count && keyed[count - 1].key.distanceM < unseen) {
                // Only the page's places are decoded whole.
                let items = try keyed.prefix(query.limit).map {
                    NearbyPlace(place: try $0.candidate.place(), distanceM: $0.key.distanceM)
                }
                return NearbyPage(items: items, hasMore: keyed.count > query.limit)
            }
            // With filters, the walk stops at `ReadBounds.filteredNearbyCandidates`: the places
            // nearer than every unseen one make the page, and the next resumes there. The walk's
            // planar order proves distances loosely (a place due east at planar distance d may be
            // as near as d·cos(latitude)), so a page far out in a dense area may prove nothing
            // new at that size: then it walks further, four times as far each time, until it does.
            let bounded = textTest == nil && query.hasFilters
            if bounded, fetch >= ReadBounds.filteredNearbyCandidates, unseen > (query.after?.distanceM ?? -1) {
                let items = try keyed.prefix { $0.key.distanceM < unseen }.prefix(query.limit).map {
                    NearbyPlace(place: try $0.candidate.place(), distanceM: $0.key.distanceM)
                }
                return NearbyPage(items: items, hasMore: true, resumeAfter: NearbyKey(distanceM: unseen, id: 0))
            }
            let previous = fetch
            // A page that has its places but not their proof yet needs only a few more candidates:
            // twice as many (32 missed the proof for 5% of the benchmark's first pages, and 128,
            // the size four times as many asked for, costs the server three times 32's time).
            let growth = keyed.count >= count ? 2 : 4
            fetch = Candidates.sizes.first { $0 >= fetch * growth } ?? fetch * growth
            if bounded, previous < ReadBounds.filteredNearbyCandidates {
                fetch = min(fetch, ReadBounds.filteredNearbyCandidates)
            }
            if fetch > maxFetch { return nil }
        }
    }

    /// The `limit` places nearest by planar distance to the walk's target beyond the cursor, as
    /// the index hands them out: those within the radius's planar reach that pass the filters,
    /// how many the index handed out, and the planar distance of the last one.
    ///
    /// The query has nothing but the KNN order and the cursor in its WHERE, so PostgreSQL always
    /// walks the GiST index nearest-first and stops after `limit` rows. With a radius test in it
    /// the planner often chose a bitmap scan of the whole radius, a sort and a parallel worker
    /// instead: measured 30 ms a query against 0.4 ms (1,000,000 places, 20 within 2 km).
    /// Filters are in the select list for the same reason: in the WHERE, a rare category would
    /// make the walk go on through the whole table. The radius's planar reach is tested here.
    private func candidates(_ walk: PostgresNearestWalk, limit: Int) async throws -> (
        qualifying: [PostgresNearestCandidate], seen: Int, lastDistance: Double
    ) {
        // Places nearer than the cursor's distance would come back first otherwise.
        let after = query.after.map { walk.skipBelow(distanceM: $0.distanceM) } ?? -1
        let rows: PostgresNearestCandidate.Rows
        func statement<Size, Start>(_: Size.Type, _: Start.Type) -> PostgresNearestCandidates<Size, Start> {
            PostgresNearestCandidates(
                walk: walk, after: after, limit: Int64(limit), reviewedOnly: query.reviewedOnly,
                minRating: query.minRating, category: query.category, openAt: query.openAt)
        }
        func execute<Start: CandidateStart>(_ start: Start.Type) async throws -> PostgresNearestCandidate.Rows {
            switch limit {
            case Candidates32.limit!: try await pool.execute(statement(Candidates32.self, start), logger: logger)
            case Candidates64.limit!: try await pool.execute(statement(Candidates64.self, start), logger: logger)
            case Candidates128.limit!: try await pool.execute(statement(Candidates128.self, start), logger: logger)
            case Candidates512.limit!: try await pool.execute(statement(Candidates512.self, start), logger: logger)
            default: try await pool.execute(statement(CandidatesAny.self, start), logger: logger)
            }
        }
        if let textTest {
            rows = try await pool.query(
                Self.testedCandidates(textTest, target: walk.target, after: after, limit: limit), logger: logger
            ).map { [openAt = query.openAt] in try PostgresNearestCandidate.read($0, walk: walk, openAt: openAt) }
        } else if after < 0 {
            rows = try await execute(FromNearest.self)
        } else {
            rows = try await execute(FromCursor.self)
        }
        var qualifying: [PostgresNearestCandidate] = []
        var seen = 0
        var last = 0.0
        for try await (candidate, distance) in rows {
            seen += 1
            last = distance
            if let candidate, distance <= walk.maxPlanar { qualifying.append(candidate) }
        }
        return (qualifying, seen, last)
    }
}
