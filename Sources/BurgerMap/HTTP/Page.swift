import Foundation
import HTTPTypes
import Hummingbird

/// One page of a list: `{"items": [...], "next_cursor": "…" | null}`.
public struct Page<Item: Encodable & Sendable>: ResponseEncodable, Sendable {
    public var items: [Item]
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }

    private enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }

    /// The page as a response, with `Link: <…>; rel="next"` when another page follows. The link
    /// repeats the request's own path and filters, with the new cursor.
    public func response(for request: Request) -> EditedResponse<Page<Item>> {
        var headers: HTTPFields = [:]
        if let nextCursor {
            var query = request.uri.queryParameters
                .filter { $0.key != "cursor" }
                .map { "\(Self.percentEncoded($0.key))=\(Self.percentEncoded($0.value))" }
            query.append("cursor=\(Self.percentEncoded(nextCursor[...]))")
            headers[HTTPField.Name("Link")!] = "<\(request.uri.path)?\(query.joined(separator: "&"))>; rel=\"next\""
        }
        return EditedResponse(headers: headers, response: self)
    }

    private static func percentEncoded(_ text: Substring) -> String {
        String(text).addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? ""
    }
}

extension CharacterSet {
    /// Characters that may stand unescaped in a query key or value.
    static let urlQueryValueAllowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~,")
        return set
    }()
}
