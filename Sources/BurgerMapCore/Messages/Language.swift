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
        guard let header, !header.isEmpty else { return .english }
        var best: (language: Language, quality: Double)?
        for entry in header.split(separator: ",").prefix(32) {
            let parts = entry.split(separator: ";")
            guard let tag = parts.first?.trimmingCharacters(in: .whitespaces).lowercased(), !tag.isEmpty else {
                continue
            }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "q" {
                    quality = Double(pair[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            guard quality > 0, quality <= 1 else { continue }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            let language = primary == "*" ? Language.english : Language(rawValue: primary)
            guard let language else { continue }
            if quality > (best?.quality ?? 0) { best = (language, quality) }
        }
        return best?.language ?? .english
    }
}
