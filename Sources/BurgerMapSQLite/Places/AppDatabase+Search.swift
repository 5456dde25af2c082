import BurgerMapCore
import CGeoIndex
import GRDB
import GRDBSQLite

extension AppDatabase {
    public func searchPlaces(_ query: SearchQuery) async throws -> SearchPage {
        try await measured("search") {
            try await TieredSearch.page(query, from: SearchTiers(database: self))
        }
    }
}

/// The SQLite engine's side of `TieredSearch`: each rank's test on the folded columns of the
/// place row `p`, the indexes that find a rank's places, and the walks.
struct SearchTiers: SearchTierSource {
    let database: AppDatabase

    /// Whether the place row `p` is of `tier` for the folded query bound as `parameter`.
    static func test(_ tier: SearchTier, _ parameter: String) -> String {
        switch tier {
        case .exactName: "p.search_name = \(parameter)"
        case .namePrefix: "instr(p.search_name, \(parameter)) = 1 AND p.search_name <> \(parameter)"
        // A name in another language ranks with the substrings (`search_names`), whatever its place.
        case .nameSubstring:
            "(instr(p.search_name, \(parameter)) > 1 OR (instr(p.search_name, \(parameter)) = 0 "
                + "AND ifnull(instr(p.search_names, \(parameter)), 0) > 0))"
        case .addressOnly:
            "instr(p.search_name, \(parameter)) = 0 AND ifnull(instr(p.search_names, \(parameter)), 0) = 0 "
                + "AND instr(p.search_address, \(parameter)) > 0"
        }
    }

    /// The rank of the place row `p` for the folded query ?1 (-1: none).
    static let rankSQL = """
        CASE WHEN p.search_name = ?1 THEN 0 WHEN instr(p.search_name, ?1) = 1 THEN 1
            WHEN instr(p.search_name, ?1) > 1 OR instr(p.search_names, ?1) > 0 THEN 2
            WHEN instr(p.search_address, ?1) > 0 THEN 3 ELSE -1 END
        """

    /// The statement that finds the places of `tiers` (?1 the folded query, ?2 an upper bound
    /// or the names' FTS5 query, ?3 the most rows to read from each index, ?4 the address
    /// lines' FTS5 query), selecting id, rank, lat, lng and review count.
    ///
    /// - Exact name and prefix: `places_by_search_name`, an ordinary index of the folded
    ///   names (`text < name < successor(text)` for a prefix: every such name, none other).
    /// - Substrings of 3 or more code points: the FTS5 trigram index of each of `sides` (the
    ///   names for the name rank, the address lines for the address rank) finds the rows that
    ///   hold every trigram of the query (`trigramQuery`); the rank, worked out from the row,
    ///   drops those that hold them apart (rank -1). A place both indexes find comes twice.
    /// - Substrings of 2 code points: the same indexes, through the trigrams that start with
    ///   them (`pairQuery`; every text ends in `searchTerminal`, so every occurrence starts one)
    ///   joined by `OR`; none such, no place holds them.
    static func matchesSQL(_ tiers: [SearchTier], bounded: Bool, sides: [SearchSide]) -> String {
        let columns = "p.id, \(rankSQL), p.lat, p.lng, p.review_count"
        switch tiers.first! {
        case .exactName:
            return "SELECT \(columns) FROM places AS p WHERE p.search_name = ?1 LIMIT ?3"
        case .namePrefix:
            return "SELECT \(columns) FROM places AS p WHERE \(prefixRange(bounded: bounded)) LIMIT ?3"
        case .nameSubstring, .addressOnly:
            return sides.map { side in
                """
                SELECT \(columns)
                FROM (SELECT rowid FROM \(side.table) WHERE \(side.table) MATCH \(side == .names ? "?2" : "?4") LIMIT ?3) AS m
                JOIN places AS p ON p.id = m.rowid
                """
            }.joined(separator: "\nUNION ALL\n")
        }
    }

    /// The trigram indexes that find the places of `tiers`, substring ranks: the names' for
    /// the name rank, the address lines' for the address rank, so that a query every address
    /// line holds and few names (`t,`) finds those names from the names' index alone.
    static func sides(_ tiers: [SearchTier]) -> [SearchSide] {
        (tiers.contains(.nameSubstring) ? [.names] : []) + (tiers.contains(.addressOnly) ? [.address] : [])
    }

    /// The names that start with ?1 and are longer, on `places_by_search_name`.
    static func prefixRange(bounded: Bool) -> String {
        "p.search_name > ?1" + (bounded ? " AND p.search_name < ?2" : "")
    }

    /// How many names start with ?1 (and are longer), up to ?3: the index alone answers it, so
    /// a prefix that thousands of names share costs no row reads before its walk.
    static func prefixCountSQL(bounded: Bool) -> String {
        "SELECT count(*) FROM (SELECT 1 FROM places AS p WHERE \(prefixRange(bounded: bounded)) LIMIT ?3)"
    }

    /// Every distinct trigram of `text` (3 code points or more) as an FTS5 string (`"`
    /// doubled), joined by `AND`: `*`, `NEAR`, `AND`, `:` and the rest inside are text, not
    /// syntax, and each string is exactly one token of the trigram tokenizer.
    static func trigramQuery(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3 else { return "" }
        var seen: Set<[Unicode.Scalar]> = []
        var tokens: [String] = []
        for start in 0...(scalars.count - 3) where seen.insert(Array(scalars[start..<(start + 3)])).inserted {
            var trigram = String.UnicodeScalarView()
            trigram.append(contentsOf: scalars[start..<(start + 3)])
            tokens.append("\"" + String(trigram).replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        }
        return tokens.joined(separator: " AND ")
    }

    /// The terms of `side`'s index that start with the 2 code points ?1 (up to ?2, their
    /// successor), one seek each down its vocabulary: the terms are trigrams, so the least term
    /// after `t` is at or after `t || char(1)`. (The vocabulary table's `row` form would count
    /// the places of every term: 24.5 ms for the five after `"r "`, 1,666,691 rows.)
    static func pairTermsSQL(_ side: SearchSide) -> String {
        """
        WITH RECURSIVE t(term) AS (
            SELECT (SELECT term FROM \(side.terms) WHERE term >= ?1 AND term < ?2 LIMIT 1)
            UNION ALL
            SELECT (SELECT v.term FROM \(side.terms) AS v WHERE v.term >= t.term || char(1) AND v.term < ?2 LIMIT 1)
            FROM t WHERE t.term IS NOT NULL
        )
        SELECT term FROM t WHERE term IS NOT NULL
        """
    }

    /// How a 2-code-point query is found common before its trigrams are listed: more than
    /// `matches` places of the ranks among the first `rows` places (0.5% of them) and the ranks
    /// are walked, as the scan before the index did. Listing a trigram costs about its places
    /// (the vocabulary lands on it): 16.5 ms for `bur`, held by every place of the benchmark,
    /// against 1.2 ms for `r b` (66,761 places) and 0.1–0.5 ms for the rest, and 5,000 rows
    /// scanned cost about 1.6 ms (0.32 µs each). The index hands out at most
    /// `TieredSearch.matchCap` places (0.2% of a million) before the rank is walked anyway, so a
    /// pair that more places hold is walked at once: with 4% (200), `99` (about 4% of the
    /// benchmark's names) listed its trigrams and read 2,001 places of them before its walk,
    /// 22.9 ms (with `v20-search-columns`' one index of both sides).
    static let pairProbe = (rows: 5_000, matches: 25)

    /// How many of the first ?2 places are of `tiers` for the folded query ?1, up to ?3.
    static func pairProbeSQL(_ tiers: [SearchTier]) -> String {
        let found = tiers.map { "(\(test($0, "?1")))" }.joined(separator: " OR ")
        return """
            SELECT count(*) FROM (
                SELECT 1 FROM (SELECT search_name, search_names, search_address FROM places LIMIT ?2) AS p
                WHERE \(found) LIMIT ?3
            )
            """
    }

    /// The FTS5 query for the places whose `side` holds the 2 code points `text`: each trigram
    /// that starts with them as an FTS5 string, joined by `OR`; `nil` when there is none.
    static func pairQuery(_ db: Database, _ text: String, _ side: SearchSide) throws -> String? {
        let upper = SearchTier.successor(of: text) ?? "\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}"
        let terms = try String.fetchAll(db, sql: pairTermsSQL(side), arguments: [text, upper])
        guard !terms.isEmpty else { return nil }
        return terms.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " OR ")
    }

    func searchMatches(_ tiers: [SearchTier], text: String, cap: Int) async throws -> [SearchCandidate]? {
        let sides = tiers.first!.rawValue >= SearchTier.nameSubstring.rawValue ? Self.sides(tiers) : []
        let upper = tiers.first! == .namePrefix ? SearchTier.successor(of: text) : nil
        let byPairs = !sides.isEmpty && !SearchText.hasTrigrams(text)
        return try await database.pool.read { db in
            // The FTS5 query of each side whose index may hold the text.
            var queries: [SearchSide: String] = [:]
            if byPairs {
                let probe = Self.pairProbe
                let common = try Int.fetchOne(
                    db, sql: Self.pairProbeSQL(tiers), arguments: [text, probe.rows, probe.matches + 1])
                if let common, common > probe.matches { return nil }
                for side in sides { queries[side] = try Self.pairQuery(db, text, side) }
                if queries.isEmpty { return [] }
            } else {
                let query = Self.trigramQuery(text)
                for side in sides { queries[side] = query }
            }
            let searched = sides.filter { queries[$0] != nil }
            let sql = Self.matchesSQL(tiers, bounded: upper != nil, sides: searched)
            var arguments: StatementArguments = [text, searched.isEmpty ? upper : queries[.names], cap + 1]
            if let address = queries[.address] { arguments += [address] }
            if tiers == [.namePrefix] {
                let count = try Int.fetchOne(
                    db, sql: Self.prefixCountSQL(bounded: upper != nil), arguments: arguments)
                if let count, count > cap { return nil }
            }
            let statement = try db.cachedStatement(sql: sql)
            try statement.setArguments(arguments)
            let handle = statement.sqliteStatement
            defer { sqlite3_reset(handle) }
            // Both indexes may find a place: it counts once.
            var seen = Set<Int64>()
            var read = 0
            var candidates: [SearchCandidate] = []
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw db.rawError(code, sql: sql) }
                let id = sqlite3_column_int64(handle, 0)
                if searched.count > 1, !seen.insert(id).inserted { continue }
                read += 1
                if read > cap { return nil }
                let rank = Int(sqlite3_column_int64(handle, 1))
                guard tiers.contains(where: { $0.rawValue == rank }) else { continue }
                candidates.append(
                    SearchCandidate(
                        id: id, rank: rank,
                        lat: sqlite3_column_double(handle, 2), lng: sqlite3_column_double(handle, 3),
                        reviewCount: Int(sqlite3_column_int64(handle, 4))))
            }
            return candidates
        }
    }

    /// None: the FTS5 index hands out matches one at a time, so finding that a substring is
    /// common costs the cap's rows, not every match.
    func searchShortWalk(_ tier: SearchTier, _ query: SearchQuery, after: SearchKey?, count: Int) async throws
        -> [SearchResult]?
    { nil }

    /// The places in the order of the review-count index from a key on (?2, ?3) that pass the
    /// rank's test (?1); ?4 is how many.
    static func reviewWalkSQL(_ tier: SearchTier, fromKey: Bool) -> String {
        let after = fromKey ? " AND p.review_count <= ?2 AND (p.review_count < ?2 OR p.id > ?3)" : ""
        return """
            SELECT \(AppDatabase.qualified(AppDatabase.placeColumns, by: "p"))
            FROM places AS p INDEXED BY places_by_review_count
            WHERE \(test(tier, "?1"))\(after)
            ORDER BY p.review_count DESC, p.id LIMIT ?4
            """
    }

    func searchWalk(_ tier: SearchTier, _ query: SearchQuery, after: SearchKey?, count: Int) async throws
        -> [SearchResult]
    {
        let rank = tier.rawValue
        return try await database.pool.read { db in
            guard let point = query.point else {
                let sql = Self.reviewWalkSQL(tier, fromKey: after != nil)
                let reviews: Int64? = after.map { Int64(-$0.order) }
                let places = try AppDatabase.fetchPlaces(
                    db, sql: sql, arguments: [query.text, reviews, after?.id, count])
                return places.map {
                    SearchResult(
                        place: $0, distanceM: nil,
                        key: SearchKey(rank: rank, order: -Double($0.reviewCount), id: $0.id))
                }
            }
            // Without a radius, every place on the sphere is within reach.
            let nearby = NearbyQuery(
                lat: point.lat, lng: point.lng, radiusM: query.radiusM ?? .pi * BM_EARTH_RADIUS_M * 1.01,
                limit: count, after: after.map { NearbyKey(distanceM: $0.order, id: $0.id) })
            let page = try NearestSearch(query: nearby, textTest: (Self.test(tier, "?8"), query.text)).page(db)
            return page.items.map {
                SearchResult(
                    place: $0.place, distanceM: $0.distanceM,
                    key: SearchKey(rank: rank, order: $0.distanceM, id: $0.place.id))
            }
        }
    }

    func searchedPlaces(ids: [Int64]) async throws -> [Int64: Place] {
        try await database.pool.read { db in try AppDatabase.places(db, ids: ids) }
    }
}
