import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    /// `Link` (RFC 8288), made once: a name is checked and lowercased each time one is made.
    static let link = HTTPField.Name("Link")!
}

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
            headers[.link] = Self.nextLink(
                path: request.uri.path, query: request.uri.query, cursor: nextCursor)
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

    /// `<path?query>; rel="next"`: the request's parameters as it sent them, its old cursor left
    /// out and the new one last (`LinkTarget`).
    static func nextLink(path: String, query: String?, cursor: String) -> String {
        var bytes = LinkTarget.buffer(path: path, query: query, cursor: cursor, extra: 14)
        bytes.append(UInt8(ascii: "<"))
        LinkTarget.append(path: path, query: query, cursor: cursor, to: &bytes)
        bytes.append(contentsOf: #">; rel="next""#.utf8)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The target of a link to the same list: `path?query` with the request's parameters as it sent
/// them, its old cursor left out and the new one, if any, last. Bytes that may not stand in a
/// query (or would end a `<…>`) are percent-encoded, so the link stays ASCII; escapes the client
/// wrote stay as they are. (One pass over the bytes: decoding and re-encoding every parameter
/// cost more than the search; a table of hex digits made for each part, and the query split
/// into an array, were another 0.4% of a nearby request's CPU, `perf`, 2026-11-28.)
enum LinkTarget {
    static func make(path: String, query: String?, cursor: String?) -> String {
        var bytes = buffer(path: path, query: query, cursor: cursor, extra: 0)
        append(path: path, query: query, cursor: cursor, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An empty buffer with room for the target and `extra` bytes more.
    static func buffer(path: String, query: String?, cursor: String?, extra: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count + (query?.utf8.count ?? 0) + (cursor?.utf8.count ?? 0) + 32 + extra)
        return bytes
    }

    /// Appends the target to `bytes`.
    static func append(path: String, query: String?, cursor: String?, to bytes: inout [UInt8]) {
        appendEncoded(path.utf8, to: &bytes, keeping: "/")
        var separator = UInt8(ascii: "?")
        if let query {
            let utf8 = query.utf8
            var start = utf8.startIndex
            while start != utf8.endIndex {
                let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
                let parameter = utf8[start..<end]
                start = end == utf8.endIndex ? end : utf8.index(after: end)
                guard !parameter.isEmpty else { continue }
                let name = parameter.prefix { $0 != UInt8(ascii: "=") }
                guard !name.elementsEqual("cursor".utf8) else { continue }
                bytes.append(separator)
                separator = UInt8(ascii: "&")
                appendEncoded(parameter, to: &bytes, keeping: "=+")
            }
        }
        if let cursor {
            bytes.append(separator)
            bytes.append(contentsOf: "cursor=".utf8)
            appendEncoded(cursor.utf8, to: &bytes, keeping: "")
        }
    }

    /// Appends `text`, percent-encoding every byte but ASCII letters, digits, `-._~,`, the bytes
    /// of `keeping`, and a `%` that starts an escape.
    private static func appendEncoded(
        _ text: some Collection<UInt8>, to bytes: inout [UInt8], keeping: StaticString
    ) {
        func isHex(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
        var index = text.startIndex
        while index != text.endIndex {
            let byte = text[index]
            index = text.index(after: index)
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: ","):
                bytes.append(byte)
            case UInt8(ascii: "%")
            where text[index...].prefix(2).count == 2 && text[index...].prefix(2).allSatisfy(isHex):
                bytes.append(byte)
            case _ where keeping.withUTF8Buffer({ $0.contains(byte) }):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.appendHex(UInt64(byte), digits: 2, uppercase: true)
            }
        }
    }
}
