import Foundation

/// The one folding rule of place search, shared by every writer and every query on both engines.
///
/// `fold` is, in order: Unicode compatibility composition (NFKC: full-width Latin becomes ASCII,
/// half-width katakana full-width), the Unicode lowercase mapping, and the removal of every
/// combining mark (canonical combining class other than 0: accents, but also the kana voicing
/// marks U+3099 and U+309A, as Foundation's diacritic-insensitive folding does) from the
/// canonical decomposition, which is then composed again (NFC). So "é" matches "e", and "ガ"
/// and "パ" match "カ" and "ハ". Hangul syllables decompose to jamo (combining class 0, kept)
/// and compose back to the same syllables, never left as jamo.
/// Two case-folding expansions that lowercasing leaves out are added: "ß" folds to "ss" and the
/// final sigma "ς" to "σ". A place matches a query when the folded query is a substring of its
/// folded name or of its folded address line (`Place.address`).
public enum SearchText {
    /// `text` folded for matching.
    public static func fold(_ text: String) -> String {
        // ASCII, most of an import, folds to its lowercase: NFKC and NFD leave it as it is.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(
                decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        let lowered = text.precomposedStringWithCompatibilityMapping.lowercased()
        var scalars = String.UnicodeScalarView()
        for scalar in lowered.decomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.properties.canonicalCombiningClass != .notReordered { continue }
            switch scalar.value {
            case 0x00DF:
                scalars.append("s")
                scalars.append("s")
            case 0x03C2: scalars.append("σ")
            default: scalars.append(scalar)
            }
        }
        return String(scalars).precomposedStringWithCanonicalMapping
    }

    /// Whether a folded query has a trigram (3 code points or more), so that the trigram indexes
    /// can find its substrings; a shorter one is found by scanning the folded names.
    public static func hasTrigrams(_ folded: String) -> Bool {
        folded.unicodeScalars.count >= 3
    }

    /// Whether `text` holds at least one character that is neither punctuation, a separator nor
    /// a control character (a letter, a digit or a symbol such as 🍔).
    public static func hasSearchableCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
                .initialPunctuation, .finalPunctuation, .otherPunctuation, .spaceSeparator, .lineSeparator,
                .paragraphSeparator, .control, .format, .nonspacingMark, .enclosingMark, .spacingMark:
                false
            default: true
            }
        }
    }
}

extension PlaceDraft {
    /// The folded name every engine stores beside the name (`search_name`).
    public var searchName: String { SearchText.fold(name) }

    /// The folded address line every engine stores (`search_address`), `nil` without address parts.
    public var searchAddress: String? {
        Place.addressLine(street: address, city: city, province: province, postalCode: postalCode, country: country)
            .map(SearchText.fold)
    }
}
