/// One entry of an `Accept-Language` header (RFC 9110 §12.5.4): a language range and its weight.
///
/// The one parser of that header: problem messages (`Language.preferred(by:)`) and place names
/// (`NamePreference`) read it through `ranges(in:)` and differ only in what they do with the ranges.
struct LanguageRange: Sendable, Equatable {
    /// The range as written, trimmed and lower-cased (`ko-kr`, `*`).
    var tag: String
    /// The q-value, in `(0, 1]`.
    var quality: Double

    /// Entries past this many are ignored: a real browser sends a handful, and the header comes
    /// from anyone.
    static let maxEntries = 32

    /// The ranges of a header in the order written. Entries with `q=0` (ruled out), a q-value
    /// that is not a number or above 1 (malformed), or an empty range are left out; parameters
    /// other than `q` are ignored, and the last `q` counts.
    static func ranges(in header: String?) -> [LanguageRange] {
        guard let header, !header.isEmpty else { return [] }
        var ranges: [LanguageRange] = []
        // Split on the separator bytes: splitting a String by Character runs grapheme breaking
        // and cost about 1 µs for a browser's header.
        for entry in split(Substring(header), on: ",").prefix(maxEntries) {
            let parts = split(entry, on: ";")
            guard let tag = parts.first.map({ trimmed($0).lowercased() }), !tag.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = split(parameter, on: "=", maxSplits: 1)
                if pair.count == 2, trimmed(pair[0]).lowercased() == "q" {
                    quality = Double(trimmed(pair[1])) ?? 0
                }
            }
            guard quality > 0, quality <= 1 else { continue }
            ranges.append(LanguageRange(tag: tag, quality: quality))
        }
        return ranges
    }

    /// The non-empty pieces of `text` between `separator` bytes.
    static func split(_ text: Substring, on separator: Unicode.Scalar, maxSplits: Int = .max) -> [Substring] {
        text.utf8.split(separator: UInt8(separator.value), maxSplits: maxSplits).map { Substring($0) }
    }

    /// `text` without leading and trailing whitespace, as `CharacterSet.whitespaces` defines it
    /// (space separators and tab). Written out because Foundation's `trimmingCharacters(in:)`
    /// tripled the cost of reading a browser's header on Linux.
    static func trimmed(_ text: Substring) -> Substring {
        func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII ? scalar == " " || scalar == "\t" : scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isWhitespace($0) })!
        return Substring(scalars[first...last])
    }

    /// `ranges` best first: by q-value, ties keeping the order written (a stable sort).
    static func byPreference(_ ranges: [LanguageRange]) -> [LanguageRange] {
        ranges.enumerated()
            .sorted {
                $0.element.quality != $1.element.quality
                    ? $0.element.quality > $1.element.quality : $0.offset < $1.offset
            }
            .map(\.element)
    }
}
