import BurgerMapCore
import Foundation

/// The objectionable-text filter (`burgermap serve --blocked-words FILE`): texts people write
/// for others to read (review titles and texts, comments, nicknames, bios) must not contain a
/// listed term. Terms and texts are compared after place search's folding (`SearchText.fold`:
/// case, full-width Latin, diacritics), so "ＢＡＤ", "Bád" and "bad" are one term.
///
/// A term of ASCII letters and digits only matches whole words (its neighbours are not ASCII
/// letters or digits), so that a short English term does not refuse every longer word that
/// holds it; any other term (Korean, Japanese, or with punctuation) matches anywhere, as those
/// scripts do not separate words with spaces. Written here: no package on the mirror filters
/// words, and the rule is a dozen lines over the folding the service already has.
public struct BlockedWords: Sendable {
    /// The folded terms, longest first.
    let terms: [String]

    /// A filter of `terms` (folded here; empty ones dropped).
    public init(terms: [String]) {
        self.terms = Set(terms.map(SearchText.fold).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
            .sorted { $0.count > $1.count }
    }

    /// A filter that refuses nothing.
    public static let none = BlockedWords(terms: [])

    /// The terms of a file: one a line, surrounding spaces ignored, as are empty lines and lines
    /// starting with `#`.
    public init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        self.init(
            terms: text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.hasPrefix("#") })
    }

    /// How many terms the filter holds.
    public var count: Int { terms.count }

    /// Whether `text` contains a term.
    public func matches(_ text: String) -> Bool {
        guard !terms.isEmpty else { return false }
        let folded = SearchText.fold(text)
        return terms.contains { Self.contains(folded, $0) }
    }

    /// Adds the `objectionable` error of `field` when `text` contains a term.
    func check(_ text: String?, field: String, into errors: inout [FieldError]) {
        guard let text, matches(text) else { return }
        errors.append(FieldError(field: field, code: "objectionable", .fieldObjectionable))
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte)
    }

    private static func contains(_ text: String, _ term: String) -> Bool {
        let wholeWord = term.utf8.allSatisfy(isWordByte)
        guard wholeWord else { return text.contains(term) }
        let haystack = Array(text.utf8)
        let needle = Array(term.utf8)
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            guard haystack[start..<(start + needle.count)].elementsEqual(needle) else { continue }
            let before = start == 0 || !isWordByte(haystack[start - 1])
            let end = start + needle.count
            let after = end == haystack.count || !isWordByte(haystack[end])
            if before && after { return true }
        }
        return false
    }
}
