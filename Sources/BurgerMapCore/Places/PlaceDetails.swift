import Foundation
import Synchronization

/// How a place's names in other languages are stored (`places.names`, both engines): one text
/// of `language U+001F name` pairs separated by U+001E, in language order, `NULL` for none.
///
/// Why not JSON: the names are read for every place of every page that a reader asks in another
/// language, and splitting on two separators costs a fraction of decoding a JSON object; a place
/// keeps the text as read (`Place.storedNames`), and the name to show is found by a scan of it
/// (`NamePreference.name(inStored:)`) without building a dictionary. The field rules refuse
/// control characters in names (`TextField`) and `PlaceNames` in language codes, so neither
/// separator can occur inside a pair. The text is canonical (keys in order), so equal names are
/// equal texts.
public enum StoredNames {
    static let pairSeparator: UInt8 = 0x1E
    static let keySeparator: UInt8 = 0x1F

    /// The stored text of `names`, `nil` when there are none.
    public static func text(_ names: [String: String]) -> String? {
        guard !names.isEmpty else { return nil }
        return names.sorted { $0.key < $1.key }.map { "\($0.key)\u{1F}\($0.value)" }.joined(separator: "\u{1E}")
    }

    /// The names of a stored text (`nil` or empty: none).
    public static func names(_ text: String?) -> [String: String] {
        guard let text, !text.isEmpty else { return [:] }
        var names: [String: String] = [:]
        for pair in text.utf8.split(separator: pairSeparator) {
            guard let separator = pair.firstIndex(of: keySeparator) else { continue }
            names[String(decoding: pair[..<separator], as: UTF8.self)] = String(
                decoding: pair[pair.index(after: separator)...], as: UTF8.self)
        }
        return names
    }
}

extension PlaceDraft {
    /// `names` as stored.
    public var storedNames: String? { StoredNames.text(names) }

    /// The folded names in other languages that differ from the folded default name, one per
    /// line (`search_names`, in the same text indexes as `search_name`), `nil` for none: place
    /// search finds a place by any of its names.
    public var searchNames: String? {
        let own = searchName
        var folded: [String] = []
        for name in names.values.sorted() {
            let fold = SearchText.fold(name)
            if fold != own, !folded.contains(fold) { folded.append(fold) }
        }
        return folded.isEmpty ? nil : folded.joined(separator: "\n")
    }
}

/// One fact of `Place.attributes`.
public enum PlaceAttribute: Sendable, Equatable {
    case text(String)
    case flag(Bool)
    case list([String])
}

/// A place's further facts (from OpenStreetMap: `cuisine` as a list, `brand`, `wheelchair`,
/// `takeaway`, `delivery`, `diet:vegetarian`, `diet:vegan`), stored and answered as one JSON
/// object with its keys in order, so that the same facts always make the same text (an import
/// compares texts to find what changed).
public enum PlaceAttributes {
    /// The most bytes of one text or list item: OpenStreetMap's own bound on a tag's value.
    public static let maxValueBytes = 255

    /// The JSON object of `values`, `nil` when there are none.
    public static func json(_ values: [String: PlaceAttribute]) -> String? {
        guard !values.isEmpty else { return nil }
        var json = "{"
        for (index, (key, value)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { json += "," }
            json += quoted(key) + ":"
            switch value {
            case .text(let text): json += quoted(text)
            case .flag(let flag): json += flag ? "true" : "false"
            case .list(let items): json += "[" + items.map(quoted).joined(separator: ",") + "]"
            }
        }
        return json + "}"
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            default:
                if scalar.value < 0x20 {
                    quoted += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }
}

extension TextField {
    /// `opening_hours` as written: OpenStreetMap's bound on a tag's value.
    package static let placeOpeningHours = TextField("opening_hours", 0...255)
    /// `timezone`: an IANA name (`PlaceTimeZone` checks it is one).
    package static let placeTimeZone = TextField("timezone", 0...64)
}

/// Whether a place is open: the one rule of `open_now` in answers and of the nearby filter on
/// both engines.
public enum OpenNow {
    /// Whether hours `hours` judged in the zone named `timeZone` are open at `date`; `nil` when
    /// either is missing, the zone is unknown or the hours use a form `OpeningHours` does not
    /// evaluate.
    public static func isOpen(hours: String?, timeZone: String?, at date: Date) -> Bool? {
        guard let hours, let timeZone, let zone = PlaceTimeZone.zone(named: timeZone),
            let parsed = parsed(hours)
        else { return nil }
        return parsed.isOpen(at: date, in: zone)
    }

    /// The hours of recent texts, parsed once: parsing (about 1.8 µs) costs some 17 times a
    /// judgement (0.1 µs), and a filtered nearby page judges up to 2,048 places, whose hours
    /// repeat (chains, `24/7`). At most `cacheSize` texts; the memory starts over when full.
    private static let cache = Mutex<[String: OpeningHours?]>([:])
    static let cacheSize = 4_096

    private static func parsed(_ hours: String) -> OpeningHours? {
        if let known = cache.withLock({ $0[hours] }) { return known }
        let parsed = OpeningHours(hours)
        cache.withLock { cache in
            if cache.count >= cacheSize { cache.removeAll(keepingCapacity: true) }
            cache[hours] = .some(parsed)
        }
        return parsed
    }
}

/// The rules of a place's names in other languages, opening hours and time zone, shared by the
/// API (adding and changing a place) and every importer.
package enum PlaceDetailRules {
    /// The problems of `names` (language → name; `nil` removes a language in an edit): each
    /// language a code (`PlaceNames.isValidLanguage`), each name the rule of `name`
    /// (`TextField.placeName`, reported as `names.<language>`), at most `PlaceNames.maxLanguages`.
    package static func problems(names: [String: String?]) -> [FieldError] {
        var errors: [FieldError] = []
        if names.count > PlaceNames.maxLanguages {
            errors.append(
                FieldError(
                    field: "names", code: "too_many", .tooManyLanguages, ["max": "\(PlaceNames.maxLanguages)"]))
            return errors
        }
        for (language, name) in names.sorted(by: { $0.key < $1.key }) {
            let field = "names." + String(language.prefix(40))
            guard PlaceNames.isValidLanguage(language) else {
                errors.append(FieldError(field: field, code: "invalid_language", .languageCodeInvalid))
                continue
            }
            if let name, let problem = TextField.placeName.named(field).problem(name) { errors.append(problem) }
        }
        return errors
    }

    /// The problem of a time zone name: too long, or not an IANA name of the system's zone
    /// database.
    package static func problem(timeZone: String) -> FieldError? {
        if let problem = TextField.placeTimeZone.problem(timeZone) { return problem }
        guard PlaceTimeZone.zone(named: timeZone) != nil else {
            return FieldError(field: "timezone", code: "unknown_time_zone", .timeZoneUnknown)
        }
        return nil
    }

    /// `names` with each name trimmed, empty names and invalid entries left out (an importer
    /// keeps the place and drops what breaks a rule), at most `PlaceNames.maxLanguages` in
    /// language order.
    package static func kept(names: [String: String]) -> [String: String] {
        var kept: [String: String] = [:]
        for (language, name) in names.sorted(by: { $0.key < $1.key }) where kept.count < PlaceNames.maxLanguages {
            guard PlaceNames.isValidLanguage(language), let name = PlaceRow.cleaned(name),
                TextField.placeName.problem(name) == nil
            else { continue }
            kept[language] = name
        }
        return kept
    }
}
