import BurgerMap
import BurgerMapCore
import CGeoIndex
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// What the search tests need beside the HTTP client.
extension TestEnvironment {
    /// Sets a place's review count, as reviews would.
    func setReviewCount(_ id: Int64, _ count: Int) async throws {
        if let postgres {
            return try await PostgresHarness(engine: postgres).setReviews(placeID: id, count: count, ratingSum: count)
        }
        try await SQLiteHarness(environment: self).setReviews(placeID: id, count: count, ratingSum: count)
    }
}

/// One search result as a test compares it: the id and the distance in the JSON.
struct SearchHit: Equatable, CustomStringConvertible {
    var id: Int64
    var distanceM: Double?

    var description: String { "\(id)" + (distanceM.map { "@\($0)" } ?? "") }
}

extension TestClientProtocol {
    /// `GET /v1/places/search` with `parameters` (percent-encoded here), every page followed to
    /// the end; answers the hits in order and the number of pages.
    func searchAll(_ parameters: [String: String]) async throws -> (hits: [SearchHit], pages: Int) {
        var hits: [SearchHit] = []
        var cursor: String?
        var pages = 0
        repeat {
            var all = parameters
            if let cursor { all["cursor"] = cursor }
            let response = try await send(.get, searchURI(all))
            try #require(response.status == .ok, "\(parameters): \(String(buffer: response.body))")
            let body = try json(response)
            let items = try #require(body["items"] as? [[String: Any]])
            hits += items.map { item in
                SearchHit(
                    id: (item["id"] as! NSNumber).int64Value, distanceM: (item["distance_m"] as? NSNumber)?.doubleValue)
            }
            cursor = body["next_cursor"] as? String
            pages += 1
            try #require(pages < 1000)
        } while cursor != nil
        return (hits, pages)
    }

    /// The ids of the first page of a search for `q`.
    func searchIDs(_ q: String, _ extra: [String: String] = [:]) async throws -> [Int64] {
        let response = try await send(.get, searchURI(extra.merging(["q": q]) { $1 }))
        try #require(response.status == .ok, "\(q): \(String(buffer: response.body))")
        return ids(try #require(try json(response)["items"] as? [[String: Any]]))
    }
}

/// `/v1/places/search?…` with every value percent-encoded.
func searchURI(_ parameters: [String: String]) -> String {
    var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7F}"))
    allowed.insert(charactersIn: "-._~")
    let query = parameters.sorted { $0.key < $1.key }.map { key, value in
        "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
    }
    return "/v1/places/search?" + query.joined(separator: "&")
}

/// The search's answer worked out by brute force over every seeded place: substring of the
/// folded name, of a name in another language, or of the address line, ranked exact, prefix, substring, address; then by distance
/// (the contract's `bm_haversine_m`, within the radius) or by review count; then id.
func bruteForceSearch(
    _ places: [(place: Place, reviews: Int)], q: String, lat: Double? = nil, lng: Double? = nil,
    radius: Double? = nil
) -> [SearchHit] {
    // Code points, not Swift's characters: the engines compare code points.
    let folded = Array(SearchText.fold(q.trimmingCharacters(in: .whitespacesAndNewlines)).unicodeScalars)
    func contains(_ text: [Unicode.Scalar]) -> Bool {
        guard text.count >= folded.count else { return false }
        return (0...(text.count - folded.count)).contains { Array(text[$0..<($0 + folded.count)]) == folded }
    }
    var ranked: [(rank: Int, order: Double, hit: SearchHit)] = []
    for (place, reviews) in places {
        let name = Array(SearchText.fold(place.name).unicodeScalars)
        let address = Array((place.address.map(SearchText.fold) ?? "").unicodeScalars)
        // Names in other languages rank with the name substrings, wherever they hold the query.
        let otherNames = place.names.values.map { Array(SearchText.fold($0).unicodeScalars) }
        let rank: Int
        if name == folded {
            rank = 0
        } else if name.starts(with: folded) {
            rank = 1
        } else if contains(name) || otherNames.contains(where: contains) {
            rank = 2
        } else if contains(address) {
            rank = 3
        } else {
            continue
        }
        if let lat, let lng {
            let distance = bm_haversine_m(lat, lng, place.lat, place.lng)
            if let radius, distance > radius { continue }
            ranked.append((rank, distance, SearchHit(id: place.id, distanceM: (distance * 1000).rounded() / 1000)))
        } else {
            ranked.append((rank, -Double(reviews), SearchHit(id: place.id, distanceM: nil)))
        }
    }
    return ranked.sorted { ($0.rank, $0.order, $0.hit.id) < ($1.rank, $1.order, $1.hit.id) }.map(\.hit)
}
