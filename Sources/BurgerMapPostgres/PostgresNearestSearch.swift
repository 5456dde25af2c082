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
        // a round trip. Rounded up to a LIMIT with a statement of its own (`NearestCandidates`).
        var fetch = [32, 128, 512].first { $0 >= count + 8 } ?? count + 8
        while true {
            let (candidates, seen, lastPG) = try await self.candidates(limit: fetch)
            var keyed: [(key: NearbyKey, row: PostgresRow)] = []
            keyed.reserveCapacity(candidates.count)
            for candidate in candidates {
                let key = NearbyKey(
                    distanceM: bm_haversine_m(query.lat, query.lng, candidate.lat, candidate.lng), id: candidate.id)
                guard key.distanceM <= query.radiusM, query.after.map({ $0 < key }) ?? true else { continue }
                keyed.append((key, candidate.row))
            }
            keyed.sort { $0.key < $1.key }
            // Every place the index has not handed out yet is at least this far away (infinity:
            // none is left).
            let unseen = seen < fetch ? Double.infinity : Self.lowerBound(pgDistance: lastPG)
            if query.radiusM < unseen || (keyed.count >= count && keyed[count - 1].key.distanceM < unseen) {
                // Only the page's places are decoded whole.
                let items = try keyed.prefix(query.limit).map {
                    NearbyPlace(
                        place: try PostgresPlaceStore.place($0.row.makeRandomAccess()), distanceM: $0.key.distanceM)
                }
                return NearbyPage(items: items, hasMore: keyed.count > query.limit)
            }
            fetch *= 4
        }
    }

    /// The `limit` places nearest by PostGIS's distance beyond the cursor, as the index hands
    /// them out: those within the radius (plus margin) that pass the filters, how many the index
    /// handed out, and the PostGIS distance of the last one.
    ///
    /// The inner query has nothing but the KNN order and the cursor, so PostgreSQL always walks
    /// the GiST index nearest-first and stops after `limit` rows. With `ST_DWithin` in it the
    /// planner often chose a bitmap scan of the whole radius, a sort and a parallel worker
    /// instead: measured 30 ms a query against 0.4 ms (1,000,000 places, 20 within 2 km).
    /// Filters stay outside for the same reason: inside, a rare category would make the walk go
    /// on through the whole table.
    private func candidates(limit: Int) async throws -> (
        qualifying: [NearestCandidate], seen: Int, lastDistance: Double
    ) {
        let radius = Self.upperBound(contractDistance: query.radiusM)
        // Places nearer than the cursor's distance would come back first otherwise.
        let after = query.after.map { $0.distanceM * (1 - Self.relativeMargin) - Self.absoluteMarginM } ?? -1
        let point = GeographyPoint(lng: query.lng, lat: query.lat)
        let rows: AsyncThrowingMapSequence<PostgresRowSequence, (candidate: NearestCandidate?, distance: Double)>
        func statement<Size>(_: Size.Type) -> NearestCandidates<Size> {
            NearestCandidates(
                point: point, after: after, limit: Int64(limit), radius: radius, reviewedOnly: query.reviewedOnly,
                minRating: query.minRating, category: query.category)
        }
        switch limit {
        case Candidates32.limit!: rows = try await client.execute(statement(Candidates32.self), logger: logger)
        case Candidates128.limit!: rows = try await client.execute(statement(Candidates128.self), logger: logger)
        case Candidates512.limit!: rows = try await client.execute(statement(Candidates512.self), logger: logger)
        default: rows = try await client.execute(statement(CandidatesAny.self), logger: logger)
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
/// `places_by_geog` (Index Scan, Order By `geog <-> $1`, Limit, no sort), 0.4–0.6 ms. Two things
/// made the generic plan look costlier, so `auto` planned every execution anew (0.2 ms):
/// - a LIMIT that is a parameter, which PostgreSQL estimates at a tenth of the table (cost
///   63,758 against 40): the LIMIT is a constant of the statement, one statement for each of a
///   few `Size`s; beyond the largest the search falls back to `LIMIT $3` (custom plans);
/// - `ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography`, which a generic plan counts on every
///   row of the index walk: the point comes bound, as hex EWKB (its coordinates to the bit).
/// With both, `pg_prepared_statements` showed 5 custom plans and then only generic ones.
///
/// Filters come as bound values; a filter that is off compares a NULL or `false`.
///
/// Each candidate carries all the place's columns, so one round trip answers the page. Measured
/// (2026-11-23, 1,000,000 places): the generic plan runs in 0.42–0.51 ms with wide or narrow
/// rows alike; narrow candidates (id, lat, lng, distance, flag) and then the page's rows by id
/// in a second prepared statement took a median of 2.1–2.2 ms in process, on one leased
/// connection or two, against 1.4–1.8 ms for this one statement in the same runs.
struct NearestCandidates<Size: CandidateCount>: PostgresPreparedStatement {
    static var name: String { "burgermap_nearest_candidates_\(Size.limit.map(String.init) ?? "n")" }
    static var sql: String { Size.sql }
    static var bindingDataTypes: [PostgresDataType] {
        // $1 is left to the server, which takes the type from `$1::geography`.
        [.null, .float8, .int8, .float8, .bool, .float8, .text]
    }

    /// A candidate: its id, position and row when it is within the radius and passes the
    /// filters, and its PostGIS distance.
    typealias Row = (candidate: NearestCandidate?, distance: Double)

    let point: GeographyPoint
    /// The least PostGIS distance of a candidate (the cursor's, less the margin; -1 for none).
    let after: Double
    /// How many candidates to fetch: `Size.limit` when it has one.
    let limit: Int64
    /// The radius plus the margin, in PostGIS's metres.
    let radius: Double
    let reviewedOnly: Bool
    let minRating: Double?
    let category: String?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(point)
        bindings.append(after)
        bindings.append(limit)
        bindings.append(radius)
        bindings.append(reviewedOnly)
        bindings.append(minRating)
        bindings.append(category)
        return bindings
    }

    func decodeRow(_ wholeRow: PostgresRow) throws -> Row {
        let row = wholeRow.makeRandomAccess()
        let distance = try row[18].decode(Double.self)
        // NULL (a place without a category, say) does not qualify.
        guard try row[19].decode(Bool?.self) == true else { return (nil, distance) }
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
            SELECT \(PostgresPlaceStore.columns), geog <-> $1::geography AS d
            FROM places
            WHERE geog <-> $1::geography >= $2
            ORDER BY geog <-> $1::geography
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

/// A point in PostGIS's `geography` text input: hex EWKB (little-endian, SRID 4326), so the
/// coordinates reach the server exactly as `ST_MakePoint` would have them.
struct GeographyPoint: PostgresNonThrowingEncodable, Sendable {
    static var psqlType: PostgresDataType { .null }
    static var psqlFormat: PostgresFormat { .text }

    let lng: Double
    let lat: Double

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        // Byte order 1 (little-endian), type 0x20000001 (point with an SRID), SRID 4326.
        byteBuffer.writeString("0101000020E6100000")
        let digits = Array("0123456789ABCDEF".utf8)
        for value in [lng, lat] {
            var bits = value.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { bytes in
                for byte in bytes {
                    byteBuffer.writeInteger(digits[Int(byte >> 4)])
                    byteBuffer.writeInteger(digits[Int(byte & 0x0F)])
                }
            }
        }
    }
}
