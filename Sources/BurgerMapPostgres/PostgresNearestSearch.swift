import BurgerMapCore
import CGeoIndex
import Foundation
import Logging
import PostgresNIO

/// Exact nearest-first search on PostGIS, with the SQLite engine's answers to the bit.
///
/// The geometry GiST index on each place's point (`places_by_point`) hands out candidates nearest-first by planar
/// distance in degrees (`NearestWalk`: one walk, two across the antimeridian, or a walk from
/// the pole's line when the radius reaches a pole); each candidate's distance is then the
/// contract's haversine (`bm_haversine_m`, the C function the SQLite engine calls), which
/// orders the page, ties by id. Once the page's last place is nearer than the least distance
/// `NearestWalk` proves for every place not handed out yet, no such place can come before
/// it; until then the search asks for four times as many candidates.
///
/// Why not the geography index and its KNN on the sphere: PostgreSQL builds a geography GiST
/// row by row (no sort support in PostGIS 3.3), 11.6 s for 1,000,000 places against 3.1 s for
/// the geometry index, which builds by sorting; that one index was most of an import's time.
/// The planar walk reads more candidates than the spherical one
/// (`NearestWalk.candidatesPerResult`: about 1.26 times the page at latitude 37.5°).
struct PostgresNearestSearch {
    let query: NearbyQuery
    let client: PostgresClient
    let logger: Logger
    /// A further test of the place row, with `text` bound as $5: a place search walks one of
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
        let walks = NearestWalk.walks(lat: query.lat, lng: query.lng, radiusM: query.radiusM)
        // The places the bound will likely need, and a few more (ties, chance), rounded up to a
        // LIMIT with a statement of its own (`NearestCandidates`). Asking again costs a round
        // trip, asking for too many costs the server: measured on 1,000,000 places, the walk of
        // 32 candidates took 0.22 ms, of 64 0.36 ms, of 128 1.1 ms.
        let expected = Double(count) * walks[0].candidatesPerResult + 4
        var fetch = Candidates.sizes.first { Double($0) >= expected } ?? Int(expected.rounded(.up))
        while true {
            var keyed: [(key: NearbyKey, row: PostgresRow)] = []
            var seenIDs = Set<Int64>()
            // The least planar distance of a place no walk has handed out (infinity: none is left).
            var unseenPlanar = Double.infinity
            var exhausted = false
            for walk in walks {
                let (candidates, seen, last) = try await self.candidates(walk, limit: fetch)
                if seen < fetch { exhausted = true } else { unseenPlanar = min(unseenPlanar, last) }
                for candidate in candidates where seenIDs.insert(candidate.id).inserted {
                    let key = NearbyKey(
                        distanceM: bm_haversine_m(query.lat, query.lng, candidate.lat, candidate.lng),
                        id: candidate.id)
                    guard key.distanceM <= query.radiusM, query.after.map({ $0 < key }) ?? true else { continue }
                    keyed.append((key, candidate.row))
                }
            }
            keyed.sort { $0.key < $1.key }
            // Every place the walks have not handed out yet is at least this far away.
            let unseen = exhausted ? Double.infinity : walks[0].lowerBound(planar: unseenPlanar)
            if query.radiusM < unseen || (keyed.count >= count && keyed[count - 1].key.distanceM < unseen) {
                // Only the page's places are decoded whole.
                let items = try keyed.prefix(query.limit).map {
                    NearbyPlace(
                        place: try PostgresPlaceStore.place($0.row.makeRandomAccess()), distanceM: $0.key.distanceM)
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
                    NearbyPlace(
                        place: try PostgresPlaceStore.place($0.row.makeRandomAccess()), distanceM: $0.key.distanceM)
                }
                return NearbyPage(items: items, hasMore: true, resumeAfter: NearbyKey(distanceM: unseen, id: 0))
            }
            let previous = fetch
            fetch = Candidates.sizes.first { $0 >= fetch * 4 } ?? fetch * 4
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
    /// The inner query has nothing but the KNN order and the cursor, so PostgreSQL always walks
    /// the GiST index nearest-first and stops after `limit` rows. With a radius test in it the
    /// planner often chose a bitmap scan of the whole radius, a sort and a parallel worker
    /// instead: measured 30 ms a query against 0.4 ms (1,000,000 places, 20 within 2 km).
    /// Filters stay outside for the same reason: inside, a rare category would make the walk go
    /// on through the whole table.
    private func candidates(_ walk: NearestWalk, limit: Int) async throws -> (
        qualifying: [NearestCandidate], seen: Int, lastDistance: Double
    ) {
        // Places nearer than the cursor's distance would come back first otherwise.
        let after = query.after.map { walk.skipBelow(distanceM: $0.distanceM) } ?? -1
        let rows: AsyncThrowingMapSequence<PostgresRowSequence, (candidate: NearestCandidate?, distance: Double)>
        func statement<Size>(_: Size.Type) -> NearestCandidates<Size> {
            NearestCandidates(
                target: walk.target, after: after, limit: Int64(limit), reach: walk.maxPlanar,
                reviewedOnly: query.reviewedOnly, minRating: query.minRating, category: query.category,
                openAt: query.openAt)
        }
        if let textTest {
            rows = try await client.query(
                Self.testedCandidates(textTest, target: walk.target, after: after, limit: limit, reach: walk.maxPlanar),
                logger: logger
            ).map { try statement(CandidatesAny.self).decodeRow($0) }
        } else {
            switch limit {
            case Candidates32.limit!: rows = try await client.execute(statement(Candidates32.self), logger: logger)
            case Candidates64.limit!: rows = try await client.execute(statement(Candidates64.self), logger: logger)
            case Candidates128.limit!: rows = try await client.execute(statement(Candidates128.self), logger: logger)
            case Candidates512.limit!: rows = try await client.execute(statement(Candidates512.self), logger: logger)
            default: rows = try await client.execute(statement(CandidatesAny.self), logger: logger)
            }
        }
        var qualifying: [NearestCandidate] = []
        var seen = 0
        var last = 0.0
        for try await (candidate, distance) in rows {
            seen += 1
            last = distance
            if let candidate { qualifying.append(candidate) }
        }
        return (qualifying, seen, last)
    }
}

/// The candidate query of `PostgresNearestSearch`, a prepared statement: each connection of the
/// pool parses it once, and every search after that binds and executes it, and after five
/// executions runs it without planning.
///
/// PostgreSQL plans a prepared statement's first five executions with the values bound (custom
/// plans), then keeps a generic plan when it does not look costlier than their average. Checked
/// on 1,000,000 places (`SET plan_cache_mode = force_generic_plan; PREPARE …; EXPLAIN ANALYZE
/// EXECUTE …`): every form of this query, generic or not, is the same plan, the KNN walk of
/// the GiST index (Index Scan, Order By `<-> $1`, Limit, no sort); checked again on the
/// geometry walk (`pg_prepared_statements`: 5 custom plans, then generic ones; 0.34 ms for 32
/// candidates). Two things made the generic plan look costlier, so `auto` planned every
/// execution anew (0.2 ms):
/// - a LIMIT that is a parameter, which PostgreSQL estimates at a tenth of the table (cost
///   63,758 against 40): the LIMIT is a constant of the statement, one statement for each of a
///   few `Size`s; beyond the largest the search falls back to `LIMIT $3` (custom plans);
/// - `ST_SetSRID(ST_MakePoint($1, $2), 4326)`, which a generic plan counts on every row of the
///   index walk: the target comes bound, as hex EWKB (its coordinates to the bit).
/// With both, `pg_prepared_statements` showed 5 custom plans and then only generic ones.
///
/// Filters come as bound values; a filter that is off compares a NULL or `false`.
///
/// Each candidate carries all the place's columns, so one round trip answers the page. Measured
/// (2026-11-23, 1,000,000 places, on the geography walk): the generic plan runs in 0.42–0.51 ms with wide or narrow
/// rows alike; narrow candidates (id, lat, lng, distance, flag) and then the page's rows by id
/// in a second prepared statement took a median of 2.1–2.2 ms in process, on one leased
/// connection or two, against 1.4–1.8 ms for this one statement in the same runs.
struct NearestCandidates<Size: CandidateCount>: PostgresPreparedStatement {
    static var name: String { "burgermap_nearest_candidates_\(Size.limit.map(String.init) ?? "n")" }
    static var sql: String { Size.sql }
    static var bindingDataTypes: [PostgresDataType] {
        // $1 is left to the server, which takes the type from `$1::geometry`.
        [.null, .float8, .int8, .float8, .bool, .float8, .text]
    }

    /// A candidate: its id, position and row when it is within the radius's planar reach and
    /// passes the filters, and its planar distance.
    typealias Row = (candidate: NearestCandidate?, distance: Double)

    let target: NearestWalk.Target
    /// The least planar distance of a candidate (from the cursor; -1 for none).
    let after: Double
    /// How many candidates to fetch: `Size.limit` when it has one.
    let limit: Int64
    /// The greatest planar distance of a place within the radius.
    let reach: Double
    let reviewedOnly: Bool
    let minRating: Double?
    let category: String?
    /// `open_now`: judged here on the row (`OpenNow`, in Swift, the one rule of both engines).
    let openAt: Date?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(target)
        bindings.append(after)
        bindings.append(limit)
        bindings.append(reach)
        bindings.append(reviewedOnly)
        bindings.append(minRating)
        bindings.append(category)
        return bindings
    }

    func decodeRow(_ wholeRow: PostgresRow) throws -> Row {
        let row = wholeRow.makeRandomAccess()
        let distance = try row[PostgresPlaceStore.columnCount].decode(Double.self)
        // NULL (a place without a category, say) does not qualify.
        guard try row[PostgresPlaceStore.columnCount + 1].decode(Bool?.self) == true else { return (nil, distance) }
        if let openAt {
            let open = OpenNow.isOpen(
                hours: try row[19].decode(String?.self), timeZone: try row[20].decode(String?.self), at: openAt)
            guard open == true else { return (nil, distance) }
        }
        let candidate = NearestCandidate(
            id: try row[0].decode(Int64.self), lat: try row[2].decode(Double.self), lng: try row[3].decode(Double.self),
            row: wholeRow)
        return (candidate, distance)
    }
}

/// A candidate that qualifies: what ordering needs, and its row, decoded into a `Place` only
/// if it makes the page (a third of the candidates do not: decoding a place's 18 columns was a
/// fifth of the client's time per search in a profile).
struct NearestCandidate: Sendable {
    let id: Int64
    let lat: Double
    let lng: Double
    let row: PostgresRow
}

/// The LIMITs that have a `NearestCandidates` statement of their own.
enum Candidates {
    static let sizes = [Candidates32.limit!, Candidates64.limit!, Candidates128.limit!, Candidates512.limit!]
}

/// The LIMIT of a `NearestCandidates` statement: a constant, or nil for `LIMIT $3`.
protocol CandidateCount: Sendable {
    static var limit: Int? { get }
    /// The statement's text, built once.
    static var sql: String { get }
}

extension CandidateCount {
    static func makeSQL() -> String {
        // $3 is bound in every form; only the open-ended one reads it.
        """
        SELECT \(PostgresPlaceStore.columns), d,
            d <= $4
            AND (NOT $5 OR review_count > 0)
            AND ($6 IS NULL OR (review_count > 0 AND rating_sum >= $6 * review_count))
            AND ($7 IS NULL OR category = $7)
        FROM (
            SELECT \(PostgresPlaceStore.columns), \(PostgresPlaceStore.point) <-> $1::geometry AS d
            FROM places
            WHERE \(PostgresPlaceStore.point) <-> $1::geometry >= $2
            ORDER BY \(PostgresPlaceStore.point) <-> $1::geometry
            LIMIT \(limit.map(String.init) ?? "$3")
        ) AS nearest
        ORDER BY d
        """
    }
}

enum Candidates32: CandidateCount {
    static let limit: Int? = 32
    static let sql = makeSQL()
}

enum Candidates64: CandidateCount {
    static let limit: Int? = 64
    static let sql = makeSQL()
}

enum Candidates128: CandidateCount {
    static let limit: Int? = 128
    static let sql = makeSQL()
}

enum Candidates512: CandidateCount {
    static let limit: Int? = 512
    static let sql = makeSQL()
}

enum CandidatesAny: CandidateCount {
    static let limit: Int? = nil
    static let sql = makeSQL()
}
