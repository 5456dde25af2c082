import BurgerMap
import CGeoIndex
import PostgresNIO

extension PostgresPlaceStore {
    /// Place search: every place whose folded name or address holds the folded query, with its
    /// rank, found through the GIN trigram indexes; then ranked and cut to the page by
    /// `SearchRanking` (shared with the SQLite engine, with the same `bm_haversine_m`, so both
    /// answer the same pages to the bit); then the page's places by id.
    ///
    /// The pattern is `%query%` with `\`, `%` and `_` escaped (`\` is LIKE's default escape), and
    /// both the pattern and the query travel as bound parameters. A query of 2 code points has
    /// no trigram of its own: `pg_trgm` then reads the whole index and checks every row.
    public func searchPlaces(_ query: SearchQuery) async throws -> SearchPage {
        let text = query.text
        let pattern = "%" + Self.escapedForLike(text) + "%"
        let rows = try await client.query(
            """
            SELECT id, CASE WHEN search_name = \(text) THEN 0 WHEN starts_with(search_name, \(text)) THEN 1
                    WHEN strpos(search_name, \(text)) > 0 THEN 2 ELSE 3 END,
                lat, lng, review_count
            FROM places WHERE search_name LIKE \(pattern) OR search_address LIKE \(pattern)
            """, logger: logger)
        var candidates: [SearchCandidate] = []
        for try await (id, rank, lat, lng, reviews) in rows.decode((Int64, Int32, Double, Double, Int64).self) {
            candidates.append(SearchCandidate(id: id, rank: Int(rank), lat: lat, lng: lng, reviewCount: Int(reviews)))
        }
        let point = query.point
        let page = SearchRanking.page(candidates, query) { lat, lng in
            bm_haversine_m(point!.lat, point!.lng, lat, lng)
        }
        guard !page.keys.isEmpty else { return SearchPage(items: [], hasMore: false) }
        let ids = page.keys.map(\.key.id)
        let places = try await Self.places(
            client.query(
                "SELECT \(unescaped: Self.columns) FROM places WHERE id = ANY(\(ids)::BIGINT[])", logger: logger))
        let byID = Dictionary(places.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return SearchPage(items: SearchRanking.results(page.keys, places: byID), hasMore: page.hasMore)
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
