import Foundation
import HTTPTypes
import Hummingbird

/// One page of a list: `{"items": [...], "next_cursor": "…" | null}`.
struct Page<Item: JSONWritable & Sendable>: Sendable {
    var items: [Item]
    var nextCursor: String?

    init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// The page as a response, with `Link: <…>; rel="next"` when another page follows. The link
    /// repeats the request's own path and filters, with the new cursor.
    func response(for request: Request) -> Response {
        var headers: HTTPFields = [:]
        if let nextCursor {
            var query = request.uri.queryParameters
                .filter { $0.key != "cursor" }
                .map { "\(Self.percentEncoded($0.key))=\(Self.percentEncoded($0.value))" }
            query.append("cursor=\(Self.percentEncoded(nextCursor[...]))")
            headers[HTTPField.Name("Link")!] = "<\(request.uri.path)?\(query.joined(separator: "&"))>; rel=\"next\""
        }
        var writer = JSONWriter(capacity: 512 + items.count * 400)
        writer.object { writer in
            writer.key("items")
            writer.array { writer in
                for item in items { item.write(to: &writer) }
            }
            writer.key("next_cursor")
            writer.value(nextCursor)
        }
        return writer.response(headers: headers)
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
