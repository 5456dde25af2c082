import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// A notification list item as a client reads it.
struct SeenNotification: Equatable, CustomStringConvertible {
    var type: String
    var count: Int
    var actors: [String]
    var read: Bool

    init(_ type: String, _ count: Int, _ actors: [String], read: Bool = false) {
        self.type = type
        self.count = count
        self.actors = actors
        self.read = read
    }

    init(_ item: [String: Any]) {
        type = item["type"] as? String ?? "?"
        count = (item["count"] as? NSNumber)?.intValue ?? -1
        actors = (item["actors"] as? [[String: Any]] ?? []).map { $0["nickname"] as? String ?? "?" }
        read = item["read"] as? Bool ?? false
    }

    var description: String { "\(type)×\(count) \(actors)\(read ? " read" : "")" }
}

extension TestClientProtocol {
    /// The first page of the user's notifications: the items as seen, the raw page.
    func notifications(token: String, query: String = "") async throws -> ([SeenNotification], [String: Any]) {
        let response = try await send(.get, "/v1/notifications\(query)", token: token)
        #expect(response.status == .ok)
        let page = try json(response)
        let items = page["items"] as? [[String: Any]] ?? []
        return (items.map(SeenNotification.init), page)
    }

    /// Comments on a review and returns the comment's id.
    func commentID(review: Int64, text: String, token: String) async throws -> Int64 {
        let response = try await send(.post, "/v1/reviews/\(review)/comments", json: ["text": text], token: token)
        #expect(response.status == .created)
        return try #require((try json(response)["id"] as? NSNumber)?.int64Value)
    }
}
