import BurgerMapCore
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
/// bound of `limit + 1` candidates that certainly qualify: no place left unseen can come before
/// them. Without filters the callback keeps the same bound itself, so that cells beyond it never
/// enter SQLite's queue (with filters a cell may not qualify, and it cannot know).
/// Each cell comes joined with its place row, whose stored coordinates give the exact haversine
/// distance; only the places that qualify are decoded.
///
/// The nearby filters (`reviewed_only`, `min_rating`, `category`, `open_now`) are tested here on the row,
/// not in SQL, so that every candidate is counted: a search with filters stops after
/// `ReadBounds.filteredNearbyCandidates` of them, with the places it proved (those nearer than
/// every place not seen yet) and a key that resumes the walk where it stopped. A 50 km search
/// for a category no place has otherwise examined every place within the radius (70 ms on
/// 102,015 places).
struct NearestSearch {
    let query: NearbyQuery
    /// A further test of the place row `p`, with `text` bound as ?8: a place search walks one
    /// of its ranks this way (`SearchTiers`).
    var textTest: (sql: String, text: String)? = nil

    private var hasFilters: Bool {
        query.hasFilters || textTest != nil
    }

    /// The cell statement: the cell's bounds, then `AppDatabase.placeColumns` from column 4 on.
    /// (CROSS JOIN fixes the join order, so rows keep the R*Tree's order.)
    private var sql: String {
        guard let textTest else { return Self.unfilteredSQL }
        return Self.sql(filters: " AND (\(textTest.sql))")
    }

    /// Whether the place on the statement's row passes the nearby filters.
    private func passesFilters(_ handle: SQLiteStatement) -> Bool {
        let reviewCount = sqlite3_column_int64(handle, Self.placeColumn + 9)
        if query.reviewedOnly, reviewCount <= 0 { return false }
        if let minRating = query.minRating {
            let ratingSum = Double(sqlite3_column_int64(handle, Self.placeColumn + 10))
            guard reviewCount > 0, ratingSum >= minRating * Double(reviewCount) else { return false }
        }
        if let category = query.category {
            guard sqlite3_column_type(handle, Self.placeColumn + 6) != SQLITE_NULL,
                let text = sqlite3_column_text(handle, Self.placeColumn + 6),
                String(cString: text) == category
            else { return false }
        }
        if let openAt = query.openAt {
            func text(_ column: Int32) -> String? {
                sqlite3_column_text(handle, Self.placeColumn + column).map { String(cString: $0) }
            }
            guard OpenNow.isOpen(hours: text(19), timeZone: text(20), at: openAt) == true else { return false }
        }
        return true
    }

    /// Whether the walk stops after `ReadBounds.filteredNearbyCandidates` candidates (a place
    /// search's walk is bounded by its own rules).
    private var isBounded: Bool { textTest == nil && query.hasFilters }

    /// The statement of most searches, made once (the statement cache looks it up by its text).
    private static let unfilteredSQL = sql(filters: "")

    private static func sql(filters: String) -> String {
        """
        SELECT r.xmin, r.xmax, r.ymin, r.ymax, \(AppDatabase.qualified(AppDatabase.placeColumns, by: "p"))
        FROM idx_places_geom AS r CROSS JOIN places AS p ON p.id = r.pkid
        WHERE r.pkid MATCH burgermap_nearest(?1, ?2, ?3, ?4, ?5)\(filters)
        """
    }

    /// The first column of the place row in the statement.
    private static let placeColumn: Int32 = 4

    /// One page: the places after the cursor, nearest first (ties by id).
    func page(_ db: Database) throws -> NearbyPage {
        let count = query.limit + 1
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
        if let textTest { sqlite3_bind_text(handle, 8, textTest.text, -1, SQLITE_TRANSIENT) }
        let bounded = isBounded
        var examined = 0
        // Once the bound stops the walk: every place not seen yet is at least this far away.
        var stoppedAt: Double? = nil

        // The places that qualify, and their keys apart, so that the sort moves small values.
        var places: [Place] = []
        var keys: [(key: NearbyKey, index: Int)] = []
        places.reserveCapacity(count + 4)
        keys.reserveCapacity(count + 4)
        // The `count` smallest upper bounds among candidates that certainly qualify.
        var certain = Heap<Double>()
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw db.rawError(code)
            }
            let (minX, maxX) = (sqlite3_column_double(handle, 0), sqlite3_column_double(handle, 1))
            let (minY, maxY) = (sqlite3_column_double(handle, 2), sqlite3_column_double(handle, 3))
            // Cells come in increasing order of this bound (it is the R*Tree's own order).
            let lower = bm_box_score_m(query.lat, query.lng, minY, maxY, minX, maxX)
            if certain.count == count, let bound = certain.max, lower > bound { break }
            if bounded {
                // (A stop that would not move past the cursor goes on: thousands of places at
                // one distance would otherwise stop every page at the same key.)
                if examined >= ReadBounds.filteredNearbyCandidates, lower > (query.after?.distanceM ?? -1) {
                    stoppedAt = lower
                    break
                }
                examined += 1
                guard passesFilters(handle) else { continue }
            }
            let upper = bm_box_max_distance_m(query.lat, query.lng, minY, maxY, minX, maxX)
            // Within the radius and strictly after the cursor whatever its exact distance.
            if upper <= query.radiusM, lower > (query.after?.distanceM ?? -1) {
                certain.insert(upper)
                if certain.count > count { _ = certain.removeMax() }
            }
            let key = NearbyKey(
                distanceM: bm_haversine_m(
                    query.lat, query.lng, sqlite3_column_double(handle, Self.placeColumn + 2),
                    sqlite3_column_double(handle, Self.placeColumn + 3)),
                id: sqlite3_column_int64(handle, Self.placeColumn))
            guard key.distanceM <= query.radiusM, query.after.map({ $0 < key }) ?? true else { continue }
            keys.append((key, places.count))
            places.append(AppDatabase.place(at: handle, from: Self.placeColumn))
        }
        keys.sort { $0.key < $1.key }
        if let stoppedAt {
            // Only the places nearer than every unseen one are certain; a full page of them ends
            // the page as usual, else the next page resumes at the bound.
            let proven = keys.prefix { $0.key.distanceM < stoppedAt }
            if proven.count <= query.limit {
                let items = proven.map { NearbyPlace(place: places[$0.index], distanceM: $0.key.distanceM) }
                return NearbyPage(items: items, hasMore: true, resumeAfter: NearbyKey(distanceM: stoppedAt, id: 0))
            }
        }
        let items = keys.prefix(query.limit).map { NearbyPlace(place: places[$0.index], distanceM: $0.key.distanceM) }
        return NearbyPage(items: items, hasMore: keys.count > query.limit)
    }
}
