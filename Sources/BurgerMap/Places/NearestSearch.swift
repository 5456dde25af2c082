import CGeoIndex
import GRDB
import GRDBSQLite
import HeapModule

/// Exact nearest-first search over SpatiaLite's R*Tree on `places.geom`.
///
/// The R*Tree's query callback (`burgermap_nearest`, in C) scores every cell by a lower bound of
/// its distance, so SQLite walks the tree best-first and hands back leaf cells in increasing
/// order of that bound; cells beyond the radius, or wholly nearer than the previous page's last
/// distance, are never visited. A leaf cell is a point rounded outwards to 32-bit floats, so it
/// also gives an upper bound. The walk stops once the next cell's lower bound exceeds the upper
/// bound of `count` candidates that certainly qualify: no place left unseen can come before them.
/// Without filters the callback keeps the same bound itself, so that cells beyond it never enter
/// SQLite's queue (with filters a cell may not qualify, and it cannot know).
/// Exact haversine distances then come from the stored coordinates of the few candidates, in
/// one fetch that also reads the page's place rows.
struct NearestSearch {
    let query: NearbyQuery

    private var hasFilters: Bool { query.reviewedOnly || query.minRating != nil || query.category != nil }

    /// The cell statement. Filters need the place row; without them the walk stays in the R*Tree.
    /// (CROSS JOIN fixes the join order, so rows keep the R*Tree's order.)
    private var sql: String {
        var filters = ""
        if query.reviewedOnly { filters += " AND p.review_count > 0" }
        if query.minRating != nil { filters += " AND p.review_count > 0 AND p.rating_sum >= ?6 * p.review_count" }
        if query.category != nil { filters += " AND p.category = ?7" }
        let join = filters.isEmpty ? "" : " CROSS JOIN places AS p ON p.id = r.pkid"
        return """
            SELECT r.pkid, r.xmin, r.xmax, r.ymin, r.ymax FROM idx_places_geom AS r\(join)
            WHERE r.pkid MATCH burgermap_nearest(?1, ?2, ?3, ?4, ?5)\(filters)
            """
    }

    /// A place that may belong to the page, with bounds of its distance.
    struct Candidate {
        var id: Int64
        var lowerBound: Double
    }

    /// The ids of the places that may be among the first `count` results: a superset of them,
    /// usually with only a few extra.
    func candidates(_ db: Database, count: Int) throws -> [Int64] {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        sqlite3_bind_double(handle, 1, query.lat)
        sqlite3_bind_double(handle, 2, query.lng)
        sqlite3_bind_double(handle, 3, query.radiusM)
        sqlite3_bind_double(handle, 4, query.after?.distanceM ?? -1)
        sqlite3_bind_int(handle, 5, hasFilters ? 0 : Int32(count))
        if let minRating = query.minRating { sqlite3_bind_double(handle, 6, minRating) }
        if let category = query.category { sqlite3_bind_text(handle, 7, category, -1, SQLITE_TRANSIENT) }

        var ids: [Int64] = []
        // The `count` smallest upper bounds among candidates that certainly qualify.
        var certain = Heap<Double>()
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw db.rawError(code)
            }
            let (minX, maxX) = (sqlite3_column_double(handle, 1), sqlite3_column_double(handle, 2))
            let (minY, maxY) = (sqlite3_column_double(handle, 3), sqlite3_column_double(handle, 4))
            // Cells come in increasing order of this bound (it is the R*Tree's own score).
            let lower = bm_box_score_m(query.lat, query.lng, minY, maxY, minX, maxX)
            if certain.count == count, let bound = certain.max, lower > bound { break }
            ids.append(sqlite3_column_int64(handle, 0))
            let upper = bm_box_max_distance_m(query.lat, query.lng, minY, maxY, minX, maxX)
            // Within the radius and strictly after the cursor whatever its exact distance.
            if upper <= query.radiusM, lower > (query.after?.distanceM ?? -1) {
                certain.insert(upper)
                if certain.count > count { _ = certain.removeMax() }
            }
        }
        return ids
    }
}
