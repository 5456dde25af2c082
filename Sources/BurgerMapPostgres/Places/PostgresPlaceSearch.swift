import BurgerMapCore
import CGeoIndex
import Logging
import PostgresNIO

extension PostgresPlaceStore {
    public func searchPlaces(_ query: SearchQuery) async throws -> SearchPage {
        try await TieredSearch.page(query, from: PostgresSearchTiers(pool: pool, logger: logger))
    }

    /// `text` with LIKE's escape character and wildcards escaped, so that each matches itself.
    static func escapedForLike(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            if character == "\\" || character == "%" || character == "_" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(character)
        }
        return escaped
    }
}

/// The PostgreSQL engine's side of `TieredSearch`, the SQLite engine's `SearchTiers` in
/// PostgreSQL's words: `strpos` for `instr`, the B-tree `places_by_search_name` in code-point
/// order (`COLLATE "C"`) for exact names and prefixes, `pg_trgm`'s GIN indexes with
/// `LIKE '%…%'` (`\`, `%` and `_` escaped) for substrings of 3 or more code points, and
/// `place_search_pairs` for those of 2 (`PostgresSearchPairs`). Every value travels as a bound
/// parameter.
struct PostgresSearchTiers: SearchTierSource {
    let pool: PostgresPool
    let logger: Logger

    /// Whether the row is of `tier` for the folded query bound as `parameter`: its rank, one
    /// expression, compared with the tier's. As three `strpos` tests joined by AND, the planner
    /// took the address rank of `t,` for 6 places in 1,000,000 and sorted a parallel scan of
    /// the table (540 ms, 1.7 s nearest-first from a point) where every place is of it; one
    /// expression gets the default share of an equality (0.5%), and the walks go down the
    /// review-count and point indexes (0.1 and 0.7 ms).
    static func test(_ tier: SearchTier, _ parameter: String) -> String {
        "(\(rank(parameter))) = \(tier.rawValue)"
    }

    /// The rank of the row for the folded query bound as `parameter` (-1: none). A name in
    /// another language ranks with the substrings (`search_names`), whatever its place.
    static func rank(_ parameter: String) -> String {
        """
        CASE WHEN search_name = \(parameter) THEN 0 WHEN strpos(search_name, \(parameter)) = 1 THEN 1
            WHEN strpos(search_name, \(parameter)) > 1 OR strpos(search_names, \(parameter)) > 0 THEN 2
            WHEN strpos(search_address, \(parameter)) > 0 THEN 3 ELSE -1 END
        """
    }

    /// The rank of the row for the folded query $1.
    static let rankSQL = rank("$1")

    func searchMatches(_ tiers: [SearchTier], text: String, cap: Int) async throws -> [SearchCandidate]? {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(text)
        bindings.append(Int64(cap + 1))
        let found: String
        switch tiers.first! {
        case .exactName:
            found = "search_name COLLATE \"C\" = $1"
        case .namePrefix:
            if let successor = SearchTier.successor(of: text) {
                bindings.append(successor)
                found = "search_name COLLATE \"C\" > $1 AND search_name COLLATE \"C\" < $3"
            } else {
                found = "search_name COLLATE \"C\" > $1"
            }
            // The index alone counts them, so that a prefix thousands of names share costs no
            // row reads before its walk.
            let count = try await pool.query(
                PostgresQuery(
                    unsafeSQL: "SELECT count(*) FROM (SELECT FROM places WHERE \(found) LIMIT $2) AS s",
                    binds: bindings), logger: logger)
            for try await count in count.decode(Int64.self) where count > cap { return nil }
        case .nameSubstring, .addressOnly:
            if SearchText.hasTrigrams(text) {
                bindings.append("%" + PostgresPlaceStore.escapedForLike(text) + "%")
                switch tiers {
                case [.nameSubstring]: found = "search_name LIKE $3 OR search_names LIKE $3"
                case [.addressOnly]: found = "search_address LIKE $3"
                default: found = "search_name LIKE $3 OR search_names LIKE $3 OR search_address LIKE $3"
                }
            } else if let pair = SearchPairs.keys(ofQuery: text) {
                // No trigram of its own: the places its pair is listed for (`PostgresSearchPairs`),
                // unless the pair is common on a side asked for (the rank is then walked).
                let keys = tiers.map { $0 == .addressOnly ? pair.address : pair.name }
                if try await PostgresSearchPairs.isCommon(keys, pool: pool, logger: logger) { return nil }
                bindings.append(keys)
                found = "id IN (SELECT place_id FROM place_search_pairs WHERE pair = ANY($3::BIGINT[]))"
            } else {
                // One code point (the route asks for two): a scan, which stops at the cap.
                found = tiers.map { "(\(Self.test($0, "$1")))" }.joined(separator: " OR ")
            }
        }
        let rows = try await pool.query(
            PostgresQuery(
                unsafeSQL: "SELECT id, \(Self.rankSQL), lat, lng, review_count FROM places WHERE \(found) LIMIT $2",
                binds: bindings), logger: logger)
        var read = 0
        var candidates: [SearchCandidate] = []
        for try await (id, rank, lat, lng, reviews) in rows.decode((Int64, Int32, Double, Double, Int64).self) {
            read += 1
            if read > cap { return nil }
            guard tiers.contains(where: { $0.rawValue == Int(rank) }) else { continue }
            candidates.append(SearchCandidate(id: id, rank: Int(rank), lat: lat, lng: lng, reviewCount: Int(reviews)))
        }
        return candidates
    }

    /// How far a walk from the query point reaches at first, and then each time it finds too few
    /// places (a search without a radius): the bounds of `PostgresNearestWalk` need a radius, and a
    /// radius that reaches a pole walks from the pole's line.
    static let walkRadii: [Double] = [2_000, 20_000, 200_000, 2_000_000, .pi * BM_EARTH_RADIUS_M * 1.01]

    /// How many places a short walk reads (`searchShortWalk`): 1,024 down the review-count
    /// index (one query), or up to 512 nearest candidates within 20 km of the point (the walk
    /// asks for 32, 128, then 512). Measured with a point on 1,000,000 places: "stack" (6.7%
    /// of the names) 9.3 ms with 512 against 47.7 ms with 128, which sends it to the GIN index;
    /// a query that matches nothing near the point pays the walk, 4–7 ms more.
    static let shortWalk = (places: 1_024, candidates: 512, radiusM: 20_000.0)

    /// A GIN index builds its whole bitmap of matches before handing out the first, which for
    /// a common substring is most of the search ("stack", 66,894 of 1,000,000 places: 28.8 ms
    /// through the index); a short walk in the page's order, testing each place, finds the page
    /// of such a substring among the first few hundred.
    func searchShortWalk(_ tier: SearchTier, _ query: SearchQuery, after: SearchKey?, count: Int) async throws
        -> [SearchResult]?
    {
        guard let point = query.point else {
            let results = try await reviewWalk(
                tier, query.text, after: after, count: count, within: Self.shortWalk.places)
            return results.count == count ? results : nil
        }
        // The places of the rank within a smaller radius come first: enough of them are the answer.
        let nearby = NearbyQuery(
            lat: point.lat, lng: point.lng, radiusM: min(query.radiusM ?? .infinity, Self.shortWalk.radiusM),
            limit: count, after: after.map { NearbyKey(distanceM: $0.order, id: $0.id) })
        let page = try await PostgresNearestSearch(
            query: nearby, pool: pool, logger: logger, textTest: (Self.test(tier, "$4"), query.text, false)
        ).page(fetchingAtMost: Self.shortWalk.candidates)
        guard let page, page.items.count == count else { return nil }
        return Self.results(page.items, tier)
    }

    func searchWalk(_ tier: SearchTier, _ query: SearchQuery, after: SearchKey?, count: Int) async throws
        -> [SearchResult]
    {
        guard let point = query.point else {
            return try await reviewWalk(tier, query.text, after: after, count: count, within: nil)
        }
        let radii = query.radiusM.map { [$0] } ?? Self.walkRadii
        var items: [NearbyPlace] = []
        for radius in radii {
            let nearby = NearbyQuery(
                lat: point.lat, lng: point.lng, radiusM: radius, limit: count,
                after: after.map { NearbyKey(distanceM: $0.order, id: $0.id) })
            items = try await PostgresNearestSearch(
                query: nearby, pool: pool, logger: logger, textTest: (Self.test(tier, "$4"), query.text, true)
            ).page().items
            // The places within a radius come first: enough of them are the answer.
            if items.count == count { break }
        }
        return Self.results(items, tier)
    }

    /// The first `count` places of the rank after `after` down the review-count index, among
    /// the first `within` places of that order when set.
    private func reviewWalk(
        _ tier: SearchTier, _ text: String, after: SearchKey?, count: Int, within: Int?
    ) async throws -> [SearchResult] {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(text)
        bindings.append(Int64(count))
        bindings.append(Int64(within ?? 0))
        var from = "TRUE"
        if let after {
            bindings.append(Int64(-after.order))
            bindings.append(after.id)
            from = "review_count <= $4 AND (review_count < $4 OR id > $5)"
        }
        // $3 is bound either way; only the short walk reads it.
        let walked =
            within == nil
            ? "places" : "(SELECT * FROM places WHERE \(from) ORDER BY review_count DESC, id LIMIT $3) AS w"
        let places = try await PostgresPlaceStore.places(
            pool.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT \(PostgresPlaceStore.columns) FROM \(walked)
                        WHERE \(from) AND \(Self.test(tier, "$1"))
                        ORDER BY review_count DESC, id LIMIT $2
                        """, binds: bindings), logger: logger))
        return places.map {
            SearchResult(
                place: $0, distanceM: nil,
                key: SearchKey(rank: tier.rawValue, order: -Double($0.reviewCount), id: $0.id))
        }
    }

    private static func results(_ items: [NearbyPlace], _ tier: SearchTier) -> [SearchResult] {
        items.map {
            SearchResult(
                place: $0.place, distanceM: $0.distanceM,
                key: SearchKey(rank: tier.rawValue, order: $0.distanceM, id: $0.place.id))
        }
    }

    func searchedPlaces(ids: [Int64]) async throws -> [Int64: Place] {
        let places = try await PostgresPlaceStore.places(
            pool.query(
                "SELECT \(unescaped: PostgresPlaceStore.columns) FROM places WHERE id = ANY(\(ids)::BIGINT[])",
                logger: logger))
        return Dictionary(places.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

extension PostgresNearestSearch {
    /// The candidate query with a further test inside the walk or beside the filters, in
    /// `PostgresNearestCandidates`' columns (whether it qualifies: the test when it is not inside the
    /// walk).
    static func testedCandidates(
        _ test: (sql: String, text: String, inWalk: Bool), target: PostgresNearestWalk.Target, after: Double, limit: Int
    ) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(target)
        bindings.append(after)
        bindings.append(Int64(limit))
        bindings.append(test.text)
        // A first page (no cursor: -1) makes no point per row for the cursor's test.
        let conditions =
            (after < 0 ? [] : ["\(PostgresPlaceStore.point) <-> $1::geometry >= $2"])
            + (test.inWalk ? ["(\(test.sql))"] : [])
        return PostgresQuery(
            unsafeSQL: """
                SELECT \(PostgresNearestCandidate.selectList(qualifies: test.inWalk ? "true" : "(\(test.sql)) IS TRUE"))
                FROM places
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                ORDER BY \(PostgresPlaceStore.point) <-> $1::geometry
                LIMIT $3
                """, binds: bindings)
    }
}
