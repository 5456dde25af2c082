import BurgerMapCore
import Foundation
import PostgresNIO

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
/// Filters come as bound values; a filter that is off compares a NULL or `false`. The cursor
/// has a statement of its own (`Start`): with `$2 < 0 OR` in one statement for both, a first
/// page's custom plans dropped the test and the generic plan looked costlier, so every search
/// was planned anew (12 custom plans of 12, 0.18 ms each).
///
/// Each candidate carries all the place's columns, so one round trip answers the page. Measured
/// (2026-11-23, 1,000,000 places, on the geography walk): the generic plan runs in 0.42–0.51 ms with wide or narrow
/// rows alike; narrow candidates (id, lat, lng, distance, flag) and then the page's rows by id
/// in a second prepared statement took a median of 2.1–2.2 ms in process, on one leased
/// connection or two, against 1.4–1.8 ms for this one statement in the same runs.
///
/// The planar distance and the radius's planar reach are worked out in the client
/// (`PostgresNearestWalk.planarDistance`). Sent by the server, each row's distance made a PostGIS
/// point for the select list and another for the cursor's test. Measured (2026-11-27, in one
/// run, alternating, rows not decoded, 1,000,000 places): 630–666 µs a statement without them
/// against 678–757 µs with them, and 761–793 µs for PostGIS's geography form.
struct PostgresNearestCandidates<Size: CandidateCount, Start: CandidateStart>: PostgresPreparedStatement {
    static var name: String {
        "burgermap_nearest_candidates_\(Size.limit.map(String.init) ?? "n")\(Start.resumes ? "_after" : "")"
    }
    static var sql: String { Start.resumes ? Size.resumingSQL : Size.sql }
    static var bindingDataTypes: [PostgresDataType] {
        // $1 is left to the server, which takes the type from `$1::geometry`.
        [.null, .float8, .int8, .bool, .float8, .text]
    }

    typealias Row = PostgresNearestCandidate.Read

    let walk: PostgresNearestWalk
    /// The least planar distance of a candidate (from the cursor; -1 for none).
    let after: Double
    /// How many candidates to fetch: `Size.limit` when it has one.
    let limit: Int64
    let reviewedOnly: Bool
    let minRating: Double?
    let category: String?
    /// `open_now`: judged here on the row (`OpenNow`, in Swift, the one rule of both engines).
    let openAt: Date?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(walk.target)
        bindings.append(after)
        bindings.append(limit)
        bindings.append(reviewedOnly)
        bindings.append(minRating)
        bindings.append(category)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try PostgresNearestCandidate.read(row, walk: walk, openAt: openAt)
    }
}

/// A candidate that qualifies: what ordering needs, and its row, decoded into a `Place` only
/// if it makes the page (a third of the candidates do not: decoding a place's 18 columns was a
/// fifth of the client's time per search in a profile).
struct PostgresNearestCandidate: Sendable {
    let id: Int64
    let lat: Double
    let lng: Double
    let row: PostgresRow

    /// The select list of a candidate row: its id when the place `qualifies` (an SQL test) and
    /// NULL when it does not, its position, then the place's `columns`. A candidate reads these
    /// three cells and no more: with the place's columns in the service, their reading cost
    /// 2 µs a row (the cells' bytes share one buffer with the rows still arriving).
    static func selectList(qualifies: String) -> String {
        "CASE WHEN \(qualifies) THEN id END, lat, lng, \(PostgresPlaceStore.columns)"
    }

    /// Where a candidate row's place columns begin.
    static let placeColumn = 3

    /// A candidate row as read: the candidate when it passes the filters, and its planar
    /// distance from the walk's target.
    typealias Read = (candidate: PostgresNearestCandidate?, distance: Double)

    /// The rows of a candidate statement, as read.
    typealias Rows = PooledRows<AsyncThrowingMapSequence<PostgresRowSequence, Read>>

    /// A candidate row's planar distance from the walk's target, and the candidate when it
    /// qualifies and, with `openAt`, is open then (`OpenNow`, in Swift, the one rule of both
    /// engines).
    static func read(_ row: PostgresRow, walk: PostgresNearestWalk, openAt: Date?) throws -> Read {
        var cells = row.makeIterator()
        // NULL: the place does not qualify (a NULL test, for a place without a category, say,
        // does not either).
        let id = try cells.next()!.int8OrNull()
        let lat = try cells.next()!.float8()
        let lng = try cells.next()!.float8()
        let distance = walk.planarDistance(lat: lat, lng: lng)
        guard let id else { return (nil, distance) }
        if let openAt {
            let place = row.makeRandomAccess()
            let open = OpenNow.isOpen(
                hours: try place[placeColumn + 19].decode(String?.self),
                timeZone: try place[placeColumn + 20].decode(String?.self), at: openAt)
            guard open == true else { return (nil, distance) }
        }
        return (PostgresNearestCandidate(id: id, lat: lat, lng: lng, row: row), distance)
    }

    /// The candidate's place, decoded whole.
    func place() throws -> Place {
        try PostgresPlaceStore.place(row.makeRandomAccess(), from: Self.placeColumn)
    }
}

/// The LIMITs that have a `PostgresNearestCandidates` statement of their own.
enum Candidates {
    static let sizes = [Candidates32.limit!, Candidates64.limit!, Candidates128.limit!, Candidates512.limit!]
}

/// The LIMIT of a `PostgresNearestCandidates` statement: a constant, or nil for `LIMIT $3`.
protocol CandidateCount: Sendable {
    static var limit: Int? { get }
    /// The statement's text from the nearest place on, built once.
    static var sql: String { get }
    /// The statement's text from a cursor on, built once.
    static var resumingSQL: String { get }
}

/// Where a `PostgresNearestCandidates` walk starts: at the nearest place, or at a cursor's planar
/// distance ($2).
protocol CandidateStart: Sendable {
    static var resumes: Bool { get }
}

enum FromNearest: CandidateStart {
    static let resumes = false
}

enum FromCursor: CandidateStart {
    static let resumes = true
}

extension CandidateCount {
    static func makeSQL(resuming: Bool) -> String {
        // $2 and $3 are bound in every form; only the resuming and the open-ended ones read them.
        """
        SELECT \(PostgresNearestCandidate.selectList(qualifies: """
            (NOT $4 OR review_count > 0)
                AND ($5 IS NULL OR (review_count > 0 AND rating_sum >= $5 * review_count))
                AND ($6 IS NULL OR category = $6)
            """))
        FROM places
        \(resuming ? "WHERE \(PostgresPlaceStore.point) <-> $1::geometry >= $2" : "")
        ORDER BY \(PostgresPlaceStore.point) <-> $1::geometry
        LIMIT \(limit.map(String.init) ?? "$3")
        """
    }
}

enum Candidates32: CandidateCount {
    static let limit: Int? = 32
    static let sql = makeSQL(resuming: false)
    static let resumingSQL = makeSQL(resuming: true)
}

enum Candidates64: CandidateCount {
    static let limit: Int? = 64
    static let sql = makeSQL(resuming: false)
    static let resumingSQL = makeSQL(resuming: true)
}

enum Candidates128: CandidateCount {
    static let limit: Int? = 128
    static let sql = makeSQL(resuming: false)
    static let resumingSQL = makeSQL(resuming: true)
}

enum Candidates512: CandidateCount {
    static let limit: Int? = 512
    static let sql = makeSQL(resuming: false)
    static let resumingSQL = makeSQL(resuming: true)
}

enum CandidatesAny: CandidateCount {
    static let limit: Int? = nil
    static let sql = makeSQL(resuming: false)
    static let resumingSQL = makeSQL(resuming: true)
}
