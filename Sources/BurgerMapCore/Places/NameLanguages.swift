import Synchronization

/// The rules for a place's names in other languages (`names`, language key → name, as OSM's
/// `name:xx` keys), the same for the API, the importer and the schema.
public enum PlaceNames {
    /// At most this many languages per place. OSM's most-named objects are countries and seas
    /// (a few hundred `name:xx` each); a restaurant, even an international chain's, has a
    /// handful. 64 keeps every row's names small (under 20 KB at the longest keys and names) while
    /// leaving room for any real burger place.
    public static let maxLanguages = 64

    /// The longest language key, in bytes (a BCP 47 tag of the shape below is at most 30).
    public static let maxLanguageBytes = 35

    /// The rule for a language key of `names`: `^[a-z]{2,3}([-_][A-Za-z0-9]{2,8}){0,3}$`, at most
    /// 35 bytes. It admits OSM's keys (`ko`, `zh-Hans`, `ko-Latn`, `zh_pinyin`, `de-CH-1901`) and
    /// refuses anything that could not be a language (`x-klingon`, `*`, empty, spaces).
    public static func isValidLanguage(_ code: String) -> Bool {
        let bytes = code.utf8
        guard bytes.count <= maxLanguageBytes else { return false }
        var index = bytes.startIndex
        var primary = 0
        while index != bytes.endIndex, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index]) {
            primary += 1
            index = bytes.index(after: index)
        }
        guard (2...3).contains(primary) else { return false }
        var subtags = 0
        while index != bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "_"), subtags < 3 else {
                return false
            }
            index = bytes.index(after: index)
            var length = 0
            while index != bytes.endIndex, isAlphanumeric(bytes[index]) {
                length += 1
                index = bytes.index(after: index)
            }
            guard (2...8).contains(length) else { return false }
            subtags += 1
        }
        return true
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }
}

/// The languages a request asks names in, best first.
///
/// Tags are kept lower-cased and matched against `names` keys case-insensitively (OSM writes
/// `zh-Hans`, browsers send `zh-hans` or `ZH-HANS`); `-` and `_` stay distinct, as they are in
/// OSM's keys (`zh_pinyin` is not a BCP 47 tag, so only `?lang=zh_pinyin` reaches it).
public struct NamePreference: Sendable, Equatable {
    /// At most this many tags are kept from a request.
    public static let maxTags = 8

    /// The tags asked, lower-cased, best first, without repeats.
    public let languages: [String]
    /// The keys tried in order: each tag, then its shorter prefixes (`zh-hant-tw`, `zh-hant`,
    /// `zh`) before the next tag, as RFC 4647's lookup does.
    let candidates: [String]

    /// From `?lang=` (wins when it names at least one valid language; a single tag or a comma
    /// list, in order) else `Accept-Language` (RFC 9110 q-values, q=0 excluded, `*` ignored, ties
    /// keep header order). Tags that break `PlaceNames.isValidLanguage` are dropped, and at most
    /// `maxTags` are kept.
    public init(lang: String?, acceptLanguage: String?) {
        var tags: [String] = []
        func add(_ tag: String) {
            if tags.count < Self.maxTags, PlaceNames.isValidLanguage(tag), !tags.contains(tag) {
                tags.append(tag)
            }
        }
        if let lang {
            for part in LanguageRange.split(Substring(lang), on: ",").prefix(LanguageRange.maxEntries) {
                add(LanguageRange.trimmed(part).lowercased())
            }
        }
        if tags.isEmpty {
            for range in LanguageRange.byPreference(LanguageRange.ranges(in: acceptLanguage)) { add(range.tag) }
        }
        self.init(languages: tags)
    }

    private init(languages: [String]) {
        self.languages = languages
        var candidates: [String] = []
        for tag in languages {
            var candidate = Substring(tag)
            while true {
                if !candidates.contains(where: { $0 == candidate }) { candidates.append(String(candidate)) }
                guard let cut = candidate.lastIndex(where: { $0 == "-" || $0 == "_" }) else { break }
                candidate = candidate[..<cut]
            }
        }
        self.candidates = candidates
    }

    /// No language asked: every place shows its default `name`.
    public static let none = NamePreference(languages: [])

    /// The name to show from a place's names as stored (`StoredNames`, `Place.storedNames`), or
    /// nil to show the default `name`. Empty names count as missing. When two keys differ only in
    /// case, the exact key wins, then the smaller. Found by scanning the text: no dictionary is
    /// built, and only the name shown is copied out. The common cases (no language asked, a place
    /// without names) cost nothing.
    public func name(inStored text: String?) -> String? {
        named(inStored: text)?.name
    }

    /// `name(inStored:)` with the language tag it was found under (the key tried that matched:
    /// `ja` for a request of `fr-CA, ja;q=0.5` over a place with a Japanese name), for the
    /// answer's `Content-Language`.
    public func named(inStored text: String?) -> (name: String, language: String)? {
        guard !candidates.isEmpty, let text, !text.isEmpty else { return nil }
        if let found = text.utf8.withContiguousStorageIfAvailable({ name(inStored: $0) }) { return found }
        return Array(text.utf8).withUnsafeBufferPointer { name(inStored: $0) }
    }

    private func name(inStored bytes: UnsafeBufferPointer<UInt8>) -> (name: String, language: String)? {
        for candidate in candidates {
            // A key equal to the candidate but for case: the smallest such key's name, unless the
            // exact key has one.
            var found: (key: Slice<UnsafeBufferPointer<UInt8>>, name: Slice<UnsafeBufferPointer<UInt8>>)?
            var start = bytes.startIndex
            while start < bytes.endIndex {
                let end = bytes[start...].firstIndex(of: StoredNames.pairSeparator) ?? bytes.endIndex
                defer { start = end + 1 }
                guard let separator = bytes[start..<end].firstIndex(of: StoredNames.keySeparator),
                    separator + 1 < end
                else { continue }
                let key = bytes[start..<separator]
                let name = bytes[(separator + 1)..<end]
                if key.elementsEqual(candidate.utf8) { return (String(decoding: name, as: UTF8.self), candidate) }
                if Self.equalIgnoringASCIICase(key, candidate),
                    found.map({ key.lexicographicallyPrecedes($0.key) }) ?? true
                {
                    found = (key, name)
                }
            }
            if let found { return (String(decoding: found.name, as: UTF8.self), candidate) }
        }
        return nil
    }

    /// Whether `key` (UTF-8) equals the lower-case `tag` once ASCII letters are lower-cased,
    /// without allocating.
    static func equalIgnoringASCIICase<Key: Collection<UInt8>>(_ key: Key, _ tag: String) -> Bool {
        let tagBytes = tag.utf8
        guard key.count == tagBytes.count else { return false }
        return zip(key, tagBytes).allSatisfy { keyByte, tagByte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(keyByte) ? keyByte | 0x20 == tagByte : keyByte == tagByte
        }
    }
}

extension NamePreference {
    /// At most this many `Accept-Language` values are remembered by `forRequest`.
    static let recentLimit = 64
    /// Longer `Accept-Language` values are read each time (a browser's is 20–60 bytes).
    static let maxRecentBytes = 256
    private static let recent = Mutex<[String: NamePreference]>([:])

    /// `init(lang:acceptLanguage:)` for a request. A browser sends the same `Accept-Language`
    /// with every request, and reading one costs about 6 µs (2% of a nearby answer's CPU), so the
    /// preferences of the last values seen are kept: at most `recentLimit` of up to
    /// `maxRecentBytes` bytes, all forgotten when the memory is full. A request with `?lang=` is
    /// read each time (a short list of tags).
    public static func forRequest(lang: String?, acceptLanguage: String?) -> NamePreference {
        guard lang == nil, let acceptLanguage, acceptLanguage.utf8.count <= maxRecentBytes else {
            return NamePreference(lang: lang, acceptLanguage: acceptLanguage)
        }
        if let known = recent.withLock({ $0[acceptLanguage] }) { return known }
        let preference = NamePreference(lang: nil, acceptLanguage: acceptLanguage)
        recent.withLock { recent in
            if recent.count >= recentLimit { recent.removeAll(keepingCapacity: true) }
            recent[acceptLanguage] = preference
        }
        return preference
    }
}
