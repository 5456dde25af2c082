import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMapSQLite

extension TestClientProtocol {
    /// Posts a review without photos and returns its id.
    func reviewID(place: Int64, text: String = "Great smash burger.", token: String) async throws -> Int64 {
        let response = try await postReview(place: place, text: text, token: token)
        #expect(response.status == .created)
        return try #require((try json(response)["id"] as? NSNumber)?.int64Value)
    }

    /// Every item of a list, page by page (`limit` per page), checking on each page that the
    /// `Link` header and `next_cursor` agree and that `next_cursor` is null exactly at the end.
    func walk(_ path: String, limit: Int, token: String? = nil, between: (Int) async throws -> Void = { _ in })
        async throws -> [[String: Any]]
    {
        var items: [[String: Any]] = []
        let separator = path.contains("?") ? "&" : "?"
        var uri = "\(path)\(separator)limit=\(limit)"
        for pageNumber in 0..<10_000 {
            let response = try await send(.get, uri, token: token)
            #expect(response.status == .ok, "\(uri): \(String(buffer: response.body))")
            let body = try json(response)
            let page = try #require(body["items"] as? [[String: Any]])
            items += page
            guard let next = body["next_cursor"] as? String else {
                #expect(response.headers[HTTPField.Name("Link")!] == nil)
                break
            }
            #expect(page.count == limit)
            let link = try #require(response.headers[HTTPField.Name("Link")!])
            #expect(link.hasPrefix("<\(path.split(separator: "?")[0])?"))
            #expect(link.hasSuffix(">; rel=\"next\""))
            let encoded = try #require(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            uri = "\(path)\(separator)limit=\(limit)&cursor=\(encoded)"
            try await between(pageNumber)
        }
        return items
    }
}

/// The `id`s of list items, in order.
func ids(_ items: [[String: Any]]) -> [Int64] {
    items.compactMap { ($0["id"] as? NSNumber)?.int64Value }
}
