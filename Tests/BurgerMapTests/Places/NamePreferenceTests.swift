import BurgerMapCore
import Testing

@Suite("NamePreference and PlaceNames")
struct NamePreferenceTests {
    static let names = ["ko": "버거집", "en": "Burger House", "ja": "バーガー屋", "zh-Hans": "汉堡店", "zh_pinyin": "Hànbǎo"]

    static func preference(_ header: String?, lang: String? = nil) -> NamePreference {
        NamePreference(lang: lang, acceptLanguage: header)
    }

    @Test("Accept-Language q-values order the tags, ties keeping header order")
    func qValues() {
        #expect(Self.preference("en;q=0.5, ko, ja;q=0.8").languages == ["ko", "ja", "en"])
        #expect(Self.preference("fr;q=0.5, ja;q=0.5, ko;q=0.5").languages == ["fr", "ja", "ko"])
        #expect(
            Self.preference("en;q=0.5, ko, ja;q=0.8").named(inStored: StoredNames.text(Self.names))?.language == "ko")
        #expect(Self.preference("fr-CA, ja;q=0.5").named(inStored: StoredNames.text(Self.names))?.language == "ja")
        #expect(Self.preference("en;q=0.4, ja").name(from: Self.names) == "バーガー屋")
    }

    @Test("a regional tag falls back to its language before the next tag")
    func fallback() {
        #expect(Self.preference("ko-KR").name(from: Self.names) == "버거집")
        #expect(Self.preference("ko-KR").named(inStored: StoredNames.text(Self.names))?.language == "ko")
        #expect(Self.preference("de").named(inStored: StoredNames.text(Self.names)) == nil)
        #expect(Self.preference("ko-KR, en;q=0.9").name(from: Self.names) == "버거집")
        #expect(Self.preference("fr-CA, en;q=0.9").name(from: Self.names) == "Burger House")
        #expect(Self.preference("zh-Hans-CN").name(from: Self.names) == "汉堡店")
        #expect(Self.preference("zh-Hans-CN").name(from: ["zh": "汉堡"]) == "汉堡")
    }

    @Test("?lang= wins over the header when it names a valid language")
    func langParameter() {
        #expect(Self.preference("ko", lang: "ja").name(from: Self.names) == "バーガー屋")
        #expect(Self.preference("ko", lang: "fr, en").name(from: Self.names) == "Burger House")
        #expect(Self.preference("ko", lang: "fr, en").languages == ["fr", "en"])
        #expect(Self.preference("ko", lang: "zh_pinyin").name(from: Self.names) == "Hànbǎo")
        #expect(Self.preference("ko", lang: "").name(from: Self.names) == "버거집")
        #expect(Self.preference("ko", lang: "!!, *").name(from: Self.names) == "버거집")
    }

    @Test("`*` and q=0 ask for nothing; malformed entries are dropped")
    func wildcardAndMalformed() {
        #expect(Self.preference("*") == .none)
        #expect(Self.preference("*, ko;q=0").name(from: Self.names) == nil)
        #expect(Self.preference("ko;q=0, en").languages == ["en"])
        for header in ["", ";;;", ",,,", "=", "ko;q=abc", "ko;q=2", "k", "ko-", "x-klingon", "ko KR", "한국어", "ko;q=-1"]
        {
            #expect(Self.preference(header) == .none, "\(header.debugDescription)")
            #expect(Self.preference(header).named(inStored: StoredNames.text(Self.names)) == nil)
        }
        #expect(Self.preference(",,ja;;q=0.3,, ko;q=abc, en;foo=bar").languages == ["en", "ja"])
        #expect(Self.preference("ko, ko-KR, KO").languages == ["ko", "ko-kr"])
        #expect(Self.preference(nil) == .none)
    }

    @Test("at most 8 tags are kept")
    func tagBound() {
        let header = ["de", "fr", "es", "it", "pt", "nl", "sv", "pl", "ja", "ko"].joined(separator: ",")
        let preference = Self.preference(header)
        #expect(preference.languages == ["de", "fr", "es", "it", "pt", "nl", "sv", "pl"])
        #expect(preference.name(from: Self.names) == nil)
        #expect(Self.preference(nil, lang: header).languages.count == NamePreference.maxTags)
    }

    @Test("keys match case-insensitively, the exact key first")
    func caseInsensitiveKeys() {
        #expect(Self.preference("zh-hans").name(from: Self.names) == "汉堡店")
        #expect(Self.preference("ZH-HANS").name(from: Self.names) == "汉堡店")
        #expect(Self.preference("ko").name(from: ["KO": "upper", "ko": "lower"]) == "lower")
        // Two keys equal but for case, neither exact: the smaller key, whatever the dictionary's order.
        #expect(Self.preference("zh-hans").name(from: ["zh-Hans": "b", "zh-HANS": "a"]) == "a")
        // `-` and `_` stay distinct, as in OSM's keys.
        #expect(Self.preference("zh-pinyin").name(from: ["zh_pinyin": "Hànbǎo"]) == nil)
    }

    @Test("no preference, no names or empty names give the default name")
    func defaults() {
        #expect(NamePreference.none.name(from: Self.names) == nil)
        #expect(NamePreference.none.named(inStored: StoredNames.text(Self.names)) == nil)
        #expect(Self.preference("ko").name(from: [:]) == nil)
        #expect(Self.preference("ko, en").name(from: ["ko": "", "en": "Burger"]) == "Burger")
    }

    @Test("the stored text gives the name the dictionary rule gives, without building the dictionary")
    func storedText() {
        // The rule as a dictionary look-up: each candidate's exact key, else the smallest key equal
        // to it but for case; empty names count as missing.
        func expected(_ preference: NamePreference, _ names: [String: String]) -> String? {
            var candidates: [String] = []
            for tag in preference.languages {
                var candidate = Substring(tag)
                while true {
                    if !candidates.contains(String(candidate)) { candidates.append(String(candidate)) }
                    guard let cut = candidate.lastIndex(where: { $0 == "-" || $0 == "_" }) else { break }
                    candidate = candidate[..<cut]
                }
            }
            for candidate in candidates {
                if let name = names[candidate], !name.isEmpty { return name }
                let folded = names.filter { !$0.value.isEmpty && $0.key.lowercased() == candidate }
                if let key = folded.keys.min() { return folded[key] }
            }
            return nil
        }
        let sets: [[String: String]] = [
            Self.names, [:], ["ko": ""], ["KO": "upper", "ko": "lower"], ["KO": "upper", "Ko": "mixed"],
            ["zh-Hans": "b", "zh-HANS": "a", "zh": "c"], ["en": "", "EN": "Upper", "ja": "ジャ"],
            ["zh_pinyin": "Hànbǎo", "zh-pinyin": "dash"], ["ko-KR": "지역", "ko": "버거"],
        ]
        let preferences =
            [
                "ko", "KO-kr", "en, ja", "zh-hans-cn", "zh-Hant, zh", "ja;q=0.1, fr, en;q=0.5", "zh-pinyin", "*", "",
            ].map { Self.preference($0) } + [Self.preference(nil, lang: "zh_pinyin")]
        for names in sets {
            for preference in preferences {
                let stored = StoredNames.text(names)
                #expect(preference.name(inStored: stored) == expected(preference, names), "\(names) \(preference)")
                #expect(preference.name(from: names) == expected(preference, names))
            }
        }
        // Pairs without a key separator are skipped, as StoredNames.names skips them.
        let preference = Self.preference("ja, en")
        #expect(preference.name(inStored: "en\u{1F}Burger\u{1E}broken\u{1E}ja\u{1F}バーガー") == "バーガー")
        #expect(preference.name(inStored: "broken\u{1E}\u{1E}en\u{1F}Burger\u{1E}") == "Burger")
        #expect(preference.name(inStored: "ja") == nil)
        #expect(preference.name(inStored: nil) == nil)
        #expect(NamePreference.none.name(inStored: StoredNames.text(Self.names)) == nil)
    }

    @Test("a request's preference is the header's, remembered or not")
    func forRequest() {
        let headers = ["ko-KR,ko;q=0.9", "ja-JP,ja;q=0.9,en;q=0.5", "*", "", "ko;q=0", "fr, ZH-hant"]
        for round in 0..<3 {
            for header in headers + [String(repeating: "en, ", count: 100)] {
                #expect(
                    NamePreference.forRequest(lang: nil, acceptLanguage: header)
                        == NamePreference(lang: nil, acceptLanguage: header), "\(round) \(header)")
                #expect(
                    NamePreference.forRequest(lang: "ja", acceptLanguage: header)
                        == NamePreference(lang: "ja", acceptLanguage: header))
                #expect(
                    NamePreference.forRequest(lang: "!!", acceptLanguage: header)
                        == NamePreference(lang: "!!", acceptLanguage: header))
            }
            // More values than are remembered: the memory empties and fills again.
            for index in 0..<100 {
                let header = "en;q=0.\(index % 10), ko-x\(index)"
                #expect(
                    NamePreference.forRequest(lang: nil, acceptLanguage: header)
                        == NamePreference(lang: nil, acceptLanguage: header))
            }
        }
        #expect(NamePreference.forRequest(lang: nil, acceptLanguage: nil) == .none)
    }

    @Test(
        "language keys: OSM's forms are accepted",
        arguments: [
            "ko", "en", "ja", "yue", "zh-Hans", "ko-Latn", "zh_pinyin", "ja_kana", "de-CH-1901", "sr-Latn-RS",
            "be-tarask", "en-US", "ab-cd-ef-gh",
        ])
    func validLanguages(code: String) {
        #expect(PlaceNames.isValidLanguage(code))
    }

    @Test(
        "language keys: anything else is refused",
        arguments: [
            "", "k", "kore", "KO", "Ko", "ko-", "ko_", "ko--KR", "ko-K", "ko-abcdefghi", "ko-a-b", "x-klingon", "*",
            "ko KR", " ko", "ko-KR-aa-bb-cc", "한국어", "ko\n", "en-US;q=1", "ko-KR!", "ko.KR",
        ])
    func invalidLanguages(code: String) {
        #expect(!PlaceNames.isValidLanguage(code))
    }

    @Test("Language.preferred reads the header through the same parser, as before")
    func problemLanguage() {
        #expect(Language.preferred(by: ",,ja;;q=0.3,, ko;q=abc") == .japanese)
        #expect(Language.preferred(by: "ko;q=1.5, ja;q=0.2") == .japanese)
        #expect(Language.preferred(by: "fr, *;q=0.5, ko;q=0.4") == .english)
        #expect(Language.preferred(by: "KO-kr") == .korean)
        #expect(Language.preferred(by: nil) == .english)
    }
}

extension NamePreference {
    /// The name shown for a dictionary of names: the rule of `name(inStored:)` on their stored form.
    func name(from names: [String: String]) -> String? {
        name(inStored: StoredNames.text(names))
    }
}
