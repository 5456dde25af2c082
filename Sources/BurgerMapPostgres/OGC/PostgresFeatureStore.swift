import BurgerMapCore
import Logging
import PostgresNIO

/// The OGC API – Features collections in PostgreSQL + PostGIS, with the same answers as the
/// SQLite engine (`AppDatabase+Features.swift`).
///
/// Each page is one statement: the bounded count of the matches (`FeatureBounds.numberMatched`)
/// and, joined laterally, the page itself, so both come from one snapshot in one round trip.
/// Every value a client sends is a bound parameter.
public struct PostgresFeatureStore: FeatureStore {
    let pool: PostgresPool
    let logger: Logger

    /// The conditions of a feature query, with its bound values.
    struct Filter {
        var conditions: [String] = []
        var binds = PostgresBindings()

        var sql: String { conditions.isEmpty ? "true" : conditions.joined(separator: " AND ") }

        /// Binds `value` and answers its placeholder.
        mutating func bind<Value: PostgresNonThrowingEncodable>(_ value: Value) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }

        /// A span of `created_at` (milliseconds; either end may be open).
        mutating func add(created: TimeRange?, column: String) {
            if let start = created?.start { conditions.append("\(column) >= \(bind(start))") }
            if let end = created?.end { conditions.append("\(column) < \(bind(end))") }
        }

        /// The box on the stored position as a plain range filter; with `index`, also the GiST
        /// test on the point, so that the planner reads a small box's candidates from the index
        /// (`places_by_point`: 32-bit boxes rounded outwards, hence the exact test as well).
        mutating func add(box: FeatureBox, alias: String, index: Bool) {
            let spans = box.longitudeSpans
            let lat = "\(alias).lat BETWEEN \(bind(box.south)) AND \(bind(box.north))"
            let lng = spans.map { "\(alias).lng BETWEEN \(bind($0.lowerBound)) AND \(bind($0.upperBound))" }
            conditions.append("\(lat) AND (\(lng.joined(separator: " OR ")))")
            if index {
                let point = PostgresPlaceStore.point(of: alias)
                let envelopes = spans.map { span in
                    "\(point) && ST_MakeEnvelope(\(bind(span.lowerBound)), \(bind(box.south)), \(bind(span.upperBound)), \(bind(box.north)), 4326)"
                }
                conditions.append("(\(envelopes.joined(separator: " OR ")))")
            }
        }
    }

    /// Whether the GiST index holds at most `cap` places in the box (counted in the index, no
    /// further; `FeatureBounds.indexCandidates`): such a box is read from the index, a denser one
    /// as a range filter on the walk of the primary key.
    func isSmall(_ box: FeatureBox, cap: Int) async throws -> Bool {
        var filter = Filter()
        filter.add(box: box, alias: "places", index: true)
        // Only the index test counts here: the exact test needs each row.
        let envelopes = filter.conditions[1]
        let sql = "SELECT count(*) FROM (SELECT 1 FROM places WHERE \(envelopes) LIMIT \(cap + 1)) AS candidates"
        var count: Int64 = 0
        for try await value in try await pool.query(
            PostgresQuery(unsafeSQL: sql, binds: filter.binds), logger: logger
        )
        .decode(Int64.self) {
            count = value
        }
        return count <= cap
    }

    /// `SELECT matched, page.* FROM (bounded count) LEFT JOIN LATERAL (page)`: always one row
    /// at least (the page's columns `NULL` when it is empty). `NULL` for the count when the
    /// paging says not to count.
    static func pageStatement(
        columns: String, from: String, countFrom: String, id: String, filter: Filter, paging: FeaturePaging
    ) -> PostgresQuery {
        var filter = filter
        let count =
            paging.countsMatches
            ? "SELECT count(*) FROM (SELECT 1 FROM \(countFrom) WHERE \(filter.sql) LIMIT \(filter.bind(Int64(paging.matchBound) + 1))) AS matches"
            : "SELECT NULL::bigint"
        let after = filter.bind(paging.after ?? 0)
        let limit = filter.bind(Int64(paging.limit) + 1)
        let sql = """
            SELECT matched.count, page.* FROM (\(count)) AS matched (count)
            LEFT JOIN LATERAL (
                SELECT \(columns) FROM \(from) WHERE \(id) > \(after) AND \(filter.sql) ORDER BY \(id) LIMIT \(limit)
            ) AS page ON true
            """
        return PostgresQuery(unsafeSQL: sql, binds: filter.binds)
    }

    public func placeFeatures(_ query: PlaceFeatureQuery) async throws -> FeaturePage<Place> {
        var filter = Filter()
        if let category = query.category { filter.conditions.append("places.category = \(filter.bind(category))") }
        if let source = query.source { filter.conditions.append("places.source = \(filter.bind(source))") }
        filter.add(created: query.created, column: "places.created_at")
        if let box = query.box {
            filter.add(box: box, alias: "places", index: try await isSmall(box, cap: query.paging.indexCandidates))
        }
        let statement = Self.pageStatement(
            columns: PostgresPlaceStore.columns, from: "places", countFrom: "places", id: "places.id", filter: filter,
            paging: query.paging)
        var matched: Int64?
        var places: [Place] = []
        for try await row in try await pool.query(statement, logger: logger) {
            let row = row.makeRandomAccess()
            matched = try row[0].decode(Int64?.self)
            guard try row[1].decode(Int64?.self) != nil else { continue }
            places.append(try PostgresPlaceStore.place(row, from: 1))
        }
        return FeaturePage(
            rows: places, limit: query.paging.limit, id: \.id,
            numberMatched: Self.numberMatched(matched, query.paging))
    }

    /// The count when it is at most the bound.
    static func numberMatched(_ count: Int64?, _ paging: FeaturePaging) -> Int? {
        guard let count, count <= paging.matchBound else { return nil }
        return Int(count)
    }
}
