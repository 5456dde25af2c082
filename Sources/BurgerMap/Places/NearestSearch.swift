import CGeoIndex
import GRDB
import GRDBSQLite
import HeapModule

/// Exact nearest-first search over SpatiaLite's R*Tree on `places.geom`.
///
/// The R*Tree's query callback (`burgermap_nearest`, in C) scores every cell by a lower bound of
/// its distance, so SQLite walks the tree best-first and hands back leaf candidates in increasing
/// order of that bound; cells beyond the radius, or wholly nearer than the previous page's last
/// distance, are never visited. The R*Tree stores points as 32-bit boxes, so each candidate's exact
/// haversine distance is computed from the stored coordinates and held in a small heap until no
/// later candidate can come before it. Only as many cells are visited as the page needs.
struct NearestSearch {
    let query: NearbyQuery

    /// The candidate statement: R*Tree first (CROSS JOIN fixes the join order, so rows keep the
    /// R*Tree's order), then the place row by its primary key for exact coordinates and filters.
    private var sql: String {
        var filters = ""
        if query.reviewedOnly { filters += " AND p.review_count > 0" }
        if query.minRating != nil { filters += " AND p.review_count > 0 AND p.rating_sum >= ?5 * p.review_count" }
        if query.category != nil { filters += " AND p.category = ?6" }
        return """
            SELECT r.pkid, r.xmin, r.xmax, r.ymin, r.ymax, p.lat, p.lng
            FROM idx_places_geom AS r CROSS JOIN places AS p ON p.id = r.pkid
            WHERE r.pkid MATCH burgermap_nearest(?1, ?2, ?3, ?4)\(filters)
            """
    }

    /// Returns up to `count` (distance, id) keys after `query.after`, nearest first.
    func run(_ db: Database, count: Int) throws -> [NearbyKey] {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        sqlite3_bind_double(handle, 1, query.lat)
        sqlite3_bind_double(handle, 2, query.lng)
        sqlite3_bind_double(handle, 3, query.radiusM)
        sqlite3_bind_double(handle, 4, query.after?.distanceM ?? 0)
        if let minRating = query.minRating { sqlite3_bind_double(handle, 5, minRating) }
        if let category = query.category {
            sqlite3_bind_text(handle, 6, category, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }

        var results: [NearbyKey] = []
        results.reserveCapacity(count)
        var pending = Heap<NearbyKey>()
        while results.count < count {
            let code = sqlite3_step(handle)
            guard code == SQLITE_ROW else {
                if code == SQLITE_DONE { break }
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            let id = sqlite3_column_int64(handle, 0)
            // Every candidate still to come is at least this far away (see the type's comment).
            let bound = bm_leaf_score_m(
                query.lat, query.lng, sqlite3_column_double(handle, 3), sqlite3_column_double(handle, 4),
                sqlite3_column_double(handle, 1), sqlite3_column_double(handle, 2))
            while results.count < count, let nearest = pending.min, nearest.distanceM < bound {
                results.append(pending.removeMin())
            }
            let distance = bm_haversine_m(
                query.lat, query.lng, sqlite3_column_double(handle, 5), sqlite3_column_double(handle, 6))
            let key = NearbyKey(distanceM: distance, id: id)
            if distance <= query.radiusM, query.after.map({ $0 < key }) ?? true {
                pending.insert(key)
            }
        }
        while results.count < count, let nearest = pending.popMin() {
            results.append(nearest)
        }
        return results
    }
}
