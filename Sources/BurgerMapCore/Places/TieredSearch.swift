/// The ranks of a search result, best first. A place has exactly one: the first whose test it
/// passes on its folded name (`search_name`), its folded names in other languages
/// (`search_names`) and address line (`search_address`).
public enum SearchTier: Int, CaseIterable, Sendable {
    /// The name is the query.
    case exactName = 0
    /// The name starts with the query (and is longer).
    case namePrefix
    /// The name holds the query further on, or a name in another language holds it anywhere
    /// (the exact and prefix ranks stay on the default name's ordered index).
    case nameSubstring
    /// Only the address line holds the query.
    case addressOnly

    /// The least string greater than every string that starts with `text` in code-point order
    /// (which is byte order in UTF-8: SQLite's `BINARY` collation and PostgreSQL's `"C"`), so that
    /// `text < name < successor` finds the names that start with `text` on an ordinary index.
    /// `nil` when there is none (`text` ends in U+10FFFF only).
    public static func successor(of text: String) -> String? {
        var scalars = Array(text.unicodeScalars)
        while let last = scalars.popLast() {
            var value = last.value + 1
            if value == 0xD800 { value = 0xE000 }
            if let next = Unicode.Scalar(value) {
                scalars.append(next)
                var successor = String.UnicodeScalarView()
                successor.append(contentsOf: scalars)
                return String(successor)
            }
        }
        return nil
    }
}

/// What an engine does for the ranks of a search; `TieredSearch` puts them together.
public protocol SearchTierSource: Sendable {
    /// Every place of the given ranks (each `SearchCandidate.rank` its own), found through an
    /// index, or `nil` when the index hands out more than `cap` places (the ranks are then
    /// walked). `tiers` is one rank, or the name-substring and address-only ranks together,
    /// which the same text index finds.
    func searchMatches(_ tiers: [SearchTier], text: String, cap: Int) async throws -> [SearchCandidate]?
    /// The first `count` places of the rank strictly after `after`, in the query's order, when a
    /// short walk finds them; else `nil` (and `TieredSearch` asks the index). For an engine whose
    /// text index stops handing out places at the cap by itself this may always be `nil`; one
    /// whose index builds the whole set of matches first makes a common substring cheap this way.
    func searchShortWalk(_ tier: SearchTier, _ query: SearchQuery, after: SearchKey?, count: Int) async throws
        -> [SearchResult]?
    /// The first `count` places of the rank strictly after `after`, in the query's order:
    /// nearest first from the query's point (within its radius), else most-reviewed first; ties
    /// by id. Fewer when the rank has no more.
    func searchWalk(_ tier: SearchTier, _ query: SearchQuery, after: SearchKey?, count: Int) async throws
        -> [SearchResult]
    /// Places by id (a place deleted in between is left out).
    func searchedPlaces(ids: [Int64]) async throws -> [Int64: Place]
}

/// A search page, rank by rank, at a cost bounded by the page rather than by how many places
/// match.
///
/// A rank whose places an index finds in at most `matchCap` is ranked whole in Swift
/// (`SearchRanking`, shared by both engines); a rank with more is walked in the page's order
/// (the nearest-first index walk, or the review-count index) testing each place, which finds a
/// page after about `count · places / matches` places, at most `count · places / matchCap`.
/// Measured on 1,000,000 places (`scripts/bench-search`): ranking every match took 85–1,275 ms
/// for queries that match much of the table; rank by rank, 0.7–4.9 ms on SQLite.
public enum TieredSearch {
    /// The most places of a rank that are ranked whole: 2,000 places cost a few ms to read and
    /// sort, and a rank with more is dense enough (0.2% of a million) for a short walk.
    public static let matchCap = 2_000

    /// One page of `query`; `matchCap` is for tests that make every rank walk.
    public static func page(
        _ query: SearchQuery, from source: some SearchTierSource, matchCap: Int = matchCap
    ) async throws -> SearchPage {
        let wanted = query.limit + 1
        var found: [(key: SearchKey, distanceM: Double?, place: Place?)] = []
        let first = query.after?.rank ?? 0
        for group in [[SearchTier.exactName], [.namePrefix], [.nameSubstring, .addressOnly]] {
            let tiers = group.filter { $0.rawValue >= first }
            guard !tiers.isEmpty else { continue }
            guard found.count < wanted else { break }
            // The substring ranks, which a text index finds (those of 2 code points too: SQLite
            // through the trigrams that start with them, PostgreSQL through its listed pairs).
            let bySubstring = tiers[0].rawValue >= SearchTier.nameSubstring.rawValue
            if bySubstring {
                let need = wanted - found.count
                if let walked = try await source.searchShortWalk(
                    tiers[0], query, after: query.after(in: tiers[0]), count: need),
                    walked.count == need
                {
                    found += walked.map { ($0.key, $0.distanceM, $0.place) }
                    break
                }
            }
            if let matches = try await source.searchMatches(tiers, text: query.text, cap: matchCap) {
                let ranked = SearchRanking.ranked(matches, query)
                found += ranked.prefix(wanted - found.count).map { ($0.key, $0.distanceM, nil) }
                continue
            }
            var walked = tiers
            // Too many substrings, but perhaps because of the address lines: a query that every
            // address holds and no name ("t,", "ci" on the benchmark's places) walked the name
            // rank through every place (PostgreSQL: 765 ms, 12.3 s with a point; SQLite, before
            // its names had a trigram index apart from the address lines': 470 ms, 2.9 s). The
            // engine's index finds the names alone here.
            if tiers == [.nameSubstring, .addressOnly],
                let names = try await source.searchMatches([.nameSubstring], text: query.text, cap: matchCap)
            {
                let ranked = SearchRanking.ranked(names, query)
                found += ranked.prefix(wanted - found.count).map { ($0.key, $0.distanceM, nil) }
                walked = [.addressOnly]
            }
            for tier in walked where found.count < wanted {
                let walked = try await source.searchWalk(
                    tier, query, after: query.after(in: tier), count: wanted - found.count)
                found += walked.map { ($0.key, $0.distanceM, $0.place) }
            }
        }
        let missing = found.filter { $0.place == nil }.map(\.key.id)
        let places = missing.isEmpty ? [:] : try await source.searchedPlaces(ids: missing)
        let items = found.prefix(query.limit).compactMap { entry in
            (entry.place ?? places[entry.key.id]).map {
                SearchResult(place: $0, distanceM: entry.distanceM, key: entry.key)
            }
        }
        return SearchPage(items: items, hasMore: found.count > query.limit)
    }
}

extension SearchQuery {
    /// The cursor when it lies in `tier` (a walk of that rank starts after it), else `nil`.
    package func after(in tier: SearchTier) -> SearchKey? {
        after.flatMap { $0.rank == tier.rawValue ? $0 : nil }
    }
}
