import Hummingbird
import HummingbirdCore

/// A request's query read as `application/x-www-form-urlencoded`, the way browsers' forms,
/// JavaScript's `URLSearchParams`, Python's `urlencode` and `curl --data-urlencode` write it:
/// `+` is a space and `%XX` a byte, in names and values alike (Go's `net/url`, Rails, Django and
/// Express read it so). A literal plus arrives as `%2B`. Hummingbird's own `queryParameters`
/// leaves `+` as it is, so `q=Burger+Lab` found nothing where `q=Burger%20Lab` found the place.
///
/// A value whose escapes are broken or whose bytes are not UTF-8 is kept as it was written, as
/// Hummingbird keeps it, so that the field's own check answers it (`400`, naming the field).
/// The rule both spellings meet is tested against the answers of `%20` (`QuerySpellingTests`).
enum FormQuery {
    /// Every parameter of `query`, decoded; a repeated name keeps every value in order (readers
    /// take the first).
    static func parameters(_ query: String?) -> FlatDictionary<Substring, Substring> {
        guard let query, !query.isEmpty else { return FlatDictionary() }
        var pairs: [(key: Substring, value: Substring)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            if let equals = part.firstIndex(of: "=") {
                pairs.append(
                    (key: decode(part[..<equals]), value: decode(part[part.index(after: equals)...])))
            } else {
                pairs.append((key: decode(part), value: ""))
            }
        }
        return FlatDictionary(pairs)
    }

    /// One name or value, decoded (see the type).
    static func decode(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex, utf8.index(after: first) != utf8.endIndex,
                    let high = hexValue(utf8[first]), let low = hexValue(utf8[utf8.index(after: first)])
                else { return text }
                bytes.append(high << 4 | low)
                index = utf8.index(after: utf8.index(after: first))
                continue
            } else {
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { return text }
        return decoded[...]
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Request {
    /// The query's parameters as forms write them (`FormQuery`): every route reads its query
    /// through this (`QueryReader` reads a number's `+` as its sign from Hummingbird's own).
    var formQuery: FlatDictionary<Substring, Substring> { FormQuery.parameters(uri.query) }
}
