import BurgerMapCore

/// A content coding the service can answer with.
public enum ContentCoding: String, Sendable, CaseIterable {
    case gzip
    /// HTTP's `deflate` is the zlib format (RFC 9110 §8.4.1.2), not a raw deflate stream.
    case deflate
    case identity
}

/// The client's `Accept-Encoding` preferences (RFC 9110 §12.5.3), read into the one coding to
/// answer with.
///
/// Hand-written because it is a few lines over a bounded header: Hummingbird has no parser for
/// it and swift-http-structured-headers does not apply (`Accept-Encoding` is not a structured
/// field; `gzip;q=0.5` with a bare `*` is not valid sfv).
public enum AcceptEncoding {
    /// The most entries read from the header (all lines together); later ones are ignored, so a
    /// header of thousands of entries costs no more than one of 32. Real clients send 2 to 5.
    public static let maximumEntries = 32

    /// The coding to answer with for these `Accept-Encoding` header values: the acceptable one
    /// with the highest q-value, `gzip` before `deflate` before `identity` on a tie. A coding with
    /// `q=0` is refused, and `*` stands for every coding not named. `identity` stays acceptable,
    /// as the least preferred, unless `identity;q=0` (or `*;q=0` without `identity`) refuses it;
    /// when everything is refused the answer is still `identity` (the service never answers 406).
    public static func preferredCoding(_ values: some Sequence<String>) -> ContentCoding {
        var named: [ContentCoding: Double] = [:]
        var wildcard: Double?
        var entries = 0
        outer: for value in values {
            for entry in value.split(separator: ",", maxSplits: maximumEntries, omittingEmptySubsequences: true) {
                entries += 1
                if entries > maximumEntries { break outer }
                var parameters = entry.split(separator: ";", maxSplits: 8).makeIterator()
                guard let name = parameters.next()?.trimmed.lowercased() else { continue }
                var quality = 1.0
                while let parameter = parameters.next() {
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2, pair[0].trimmed.lowercased() == "q" else { continue }
                    quality = qValue(pair[1].trimmed) ?? 0
                }
                switch name {
                case "gzip", "x-gzip": named[.gzip] = max(named[.gzip] ?? 0, quality)
                case "deflate": named[.deflate] = max(named[.deflate] ?? 0, quality)
                case "identity": named[.identity] = quality
                case "*": wildcard = quality
                default: continue
                }
            }
        }
        let identityQuality = named[.identity] ?? wildcard.map { min($0, implicitIdentity) } ?? implicitIdentity
        var best = (coding: ContentCoding.identity, quality: identityQuality)
        for coding in [ContentCoding.deflate, .gzip] {
            let quality = named[coding] ?? wildcard ?? 0
            if quality > 0, quality >= best.quality { best = (coding, quality) }
        }
        return best.coding
    }

    /// The weight of `identity` when the header does not name it: acceptable, below any coding
    /// the client named with a positive q-value.
    private static let implicitIdentity = 0.0001

    /// A `qvalue`: `0` to `1` with at most three decimals; anything else is treated as `0`.
    static func qValue(_ text: Substring) -> Double? {
        guard text.utf8.count <= 5, let value = Double(text), (0...1).contains(value) else { return nil }
        return value
    }
}

extension Substring {
    fileprivate var trimmed: Substring {
        let start = firstIndex { $0 != " " && $0 != "\t" } ?? endIndex
        let end = lastIndex { $0 != " " && $0 != "\t" }.map(index(after:)) ?? start
        return self[start..<Swift.max(start, end)]
    }
}
