import BurgerMap
import CGeoIndex
import GRDB
import GRDBSQLite

extension AppDatabase {
    public func searchPlaces(_ query: SearchQuery) async throws -> SearchPage {
        try await measured("search") { try await pool.read { db in try Self.searchPlaces(db, query) } }
    }

    /// The rank of a matching row from its folded name (?1 is the folded query): 0 exact,
    /// 1 prefix (the first occurrence is at the start), 2 elsewhere in the name, 3 only in the
    /// address.
    private static let rankSQL = """
        CASE WHEN p.search_name = ?1 THEN 0 WHEN instr(p.search_name, ?1) = 1 THEN 1
            WHEN instr(p.search_name, ?1) > 0 THEN 2 ELSE 3 END
        """

    /// Queries of 3 or more code points: `places_search` finds the rows holding every trigram of
    /// the query at consecutive positions in one column, which is the substring match itself;
    /// `instr` checks it again on the row. ?2 is the query as one FTS5 string (`"` doubled), so
    /// `*`, `NEAR`, `AND`, `:` and the rest are text, not syntax.
    private static let trigramSQL = """
        SELECT p.id, \(rankSQL), p.lat, p.lng, p.review_count
        FROM places_search JOIN places AS p ON p.id = places_search.rowid
        WHERE places_search MATCH ?2 AND (instr(p.search_name, ?1) > 0 OR instr(p.search_address, ?1) > 0)
        """

    /// Queries of 2 code points, which have no trigram: a scan of the folded columns with
    /// `instr` (a byte search per row, no pattern syntax). Its cost grows with the table, about
    /// one pass over `places` per search (tens of milliseconds for a million places); what it
    /// returns is bounded by the matches, as for longer queries.
    private static let scanSQL = """
        SELECT p.id, \(rankSQL), p.lat, p.lng, p.review_count FROM places AS p
        WHERE instr(p.search_name, ?1) > 0 OR instr(p.search_address, ?1) > 0
        """

    /// The search on one connection: every match with its rank, ranked and cut to the page by
    /// `SearchRanking` (which both engines share), then the page's places by id.
    static func searchPlaces(_ db: Database, _ query: SearchQuery) throws -> SearchPage {
        let usesTrigrams = query.text.unicodeScalars.count >= 3
        let sql = usesTrigrams ? trigramSQL : scanSQL
        let statement = try db.cachedStatement(sql: sql)
        var arguments: StatementArguments = [query.text]
        if usesTrigrams {
            arguments += ["\"" + query.text.replacingOccurrences(of: "\"", with: "\"\"") + "\""]
        }
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        var candidates: [SearchCandidate] = []
        do {
            defer { sqlite3_reset(handle) }
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw db.rawError(code, sql: sql) }
                candidates.append(
                    SearchCandidate(
                        id: sqlite3_column_int64(handle, 0), rank: Int(sqlite3_column_int64(handle, 1)),
                        lat: sqlite3_column_double(handle, 2), lng: sqlite3_column_double(handle, 3),
                        reviewCount: Int(sqlite3_column_int64(handle, 4))))
            }
        }
        let point = query.point
        let page = SearchRanking.page(candidates, query) { lat, lng in
            bm_haversine_m(point!.lat, point!.lng, lat, lng)
        }
        let places = try Self.places(db, ids: page.keys.map(\.key.id))
        return SearchPage(items: SearchRanking.results(page.keys, places: places), hasMore: page.hasMore)
    }
}
