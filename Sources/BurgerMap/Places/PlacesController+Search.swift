import BurgerMapCore
import Foundation
import Hummingbird

extension PlacesController {
    /// The most code points a search query may have, after trimming.
    static let searchQueryLength = 2...100

    /// `GET /v1/places/search?q=&lat=&lng=&radius_m=&limit=&cursor=`: places whose name or
    /// address contains `q` (folded by `SearchText.fold` on both sides), ranked exact name,
    /// name prefix, name substring, then address-only matches; within each rank nearest first
    /// when `lat`/`lng` are given (`radius_m` then limits the distance), else most-reviewed
    /// first; then by id. Keyset pages with cursors signed for the folded query and the point.
    ///
    /// `q` is trimmed and must be 2…100 code points, still at least 2 once folded, free of
    /// control characters, and hold a letter, digit or symbol: anything else is
    /// `400 validation_failed`, never a scan of every place. Every character of `q` (`%`, `_`,
    /// `"`, `*` and `\` included) matches only itself.
    ///
    /// A query of two code points (once folded) has no trigram of its own: SQLite finds it
    /// through the trigrams that start with it (`v19-search-pairs`), PostgreSQL through
    /// `place_search_pairs` (`v17-search-pairs`), both in milliseconds; before them, a scan of
    /// the folded names took about 0.4 s over 1,000,000 places when few held the pair. As a
    /// safety net kept from then, such searches take one of `searchScans`' cores
    /// while they run (half the machine's), and one that finds none idle is answered
    /// `503 service_unavailable` with `Retry-After: 1` at once: waiting in a queue would hold
    /// connections for whoever sends them fastest. With eight connections sending `q=zz` to a
    /// server on 1,000,000 places (2 cores, `scripts/bench-search-flood`, medians of 3), nearby
    /// searches beside them kept 0.28× of their throughput alone and `/health` answered in
    /// 1,120 ms at the 99th percentile without the bound; with it, 0.49× and 4.6 ms.
    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> Response {
        var reader = QueryReader(request)
        let raw = reader.text("q")?.trimmingCharacters(in: .whitespacesAndNewlines)
        let lat = reader.optionalDouble("lat", in: -90...90)
        let lng = reader.optionalDouble("lng", in: -180...180)
        let radius = reader.optionalDouble("radius_m", in: 1...20_037_509)
        let limit = reader.int("limit", in: 1...50, default: 20)
        var folded = ""
        if let raw {
            folded = SearchText.fold(raw)
            let length = Self.searchQueryLength
            let rawCount = raw.unicodeScalars.count
            if TextField.codePointsAndControls(raw, allowingLineBreaks: false).hasControl {
                // NUL and the other control characters are in no stored text (the field rules
                // refuse them), and PostgreSQL refuses NUL in any text.
                reader.fail("q", "control_characters", .fieldControlCharacters)
            } else if rawCount < length.lowerBound || rawCount > length.upperBound || folded.unicodeScalars.count < 2 {
                let tooShort = rawCount < length.lowerBound || folded.unicodeScalars.count < 2
                reader.fail(
                    "q", tooShort ? "too_short" : "too_long", .fieldLength,
                    ["min": "\(length.lowerBound)", "max": "\(length.upperBound)"])
            } else if !SearchText.hasSearchableCharacter(folded) {
                reader.fail("q", "no_letters", .searchQueryNoLetters)
            }
        } else {
            reader.fail("q", "required", .fieldRequired)
        }
        if lat != nil, lng == nil { reader.fail("lng", "required", .fieldRequired) }
        if lng != nil, lat == nil { reader.fail("lat", "required", .fieldRequired) }
        if radius != nil, lat == nil, lng == nil { reader.fail("radius_m", "needs_point", .searchRadiusWithoutPoint) }
        let format = PlaceListFormat.read(&reader, request)
        try reader.validate()
        var query = SearchQuery(text: folded, lat: lat, lng: lng, radiusM: radius, limit: limit)
        // The cursor belongs to this exact search: same folded text, point and radius (the text
        // goes last, after its length, so that no text can stand for another field).
        let point = query.point.map { "\($0.lat)|\($0.lng)|\(radius ?? 0)" } ?? "-"
        let scope = "search|\(point)|\(folded.utf8.count)|\(folded)"
        if let cursor = reader.text("cursor") {
            query.after = try cursors.decode(SearchKey.self, from: cursor, scope: scope)
        }
        let scans = !SearchText.hasTrigrams(folded)
        if scans {
            guard searchScans.borrow() else {
                throw Problem(.serviceUnavailable, .searchScansBusy, headers: [.retryAfter: "1"])
            }
        }
        defer { if scans { searchScans.giveBack() } }
        let page = try await reads.run(request, context) { [query] in try await $0.searchPlaces(query) }
        let next = page.hasMore ? page.items.last.map { cursors.encode($0.key, scope: scope) } : nil
        return Page(items: page.items, nextCursor: next).response(for: request, format: format)
    }
}
