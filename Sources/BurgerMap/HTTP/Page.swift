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
                // By index: each item is written in place, not copied out of the array first.
                for index in items.indices { items[index].write(to: &writer) }
            }
            writer.key("next_cursor")
            writer.value(nextCursor)
        }
        return writer.response(headers: headers)
    }

    /// Percent-encodes every byte but ASCII letters, digits and `-._~,` (so the header stays
    /// ASCII). Byte by byte: Foundation's `addingPercentEncoding` cost more than the search.
    static func percentEncoded(_ text: Substring) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: ","):
                bytes.append(byte)
            default:
                bytes.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
