/// A language the service speaks to people in: problem titles, details and field messages.
public enum Language: String, Sendable, CaseIterable {
    case english = "en"
    case korean = "ko"
    case japanese = "ja"

    /// The language to answer in for an `Accept-Language` header (RFC 9110 §12.5.4): the
    /// supported language with the highest q-value, matched by primary subtag (`ko-KR` is
    /// Korean), earlier entries winning ties; `q=0` rules a language out; `*` and anything
    /// unsupported fall back to English.
    public static func preferred(by header: String?) -> Language {
        var best: (language: Language, quality: Double)?
        for range in LanguageRange.ranges(in: header) {
            let primary = range.tag.split(separator: "-").first.map(String.init) ?? range.tag
            let language = primary == "*" ? Language.english : Language(rawValue: primary)
            guard let language else { continue }
            if range.quality > (best?.quality ?? 0) { best = (language, range.quality) }
        }
        return best?.language ?? .english
    }
}
