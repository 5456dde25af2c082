import BurgerMapCore
import Hummingbird
import HummingbirdCore

/// Reads and validates query parameters, collecting every invalid field so that one answer
/// tells the client all that is wrong.
struct QueryReader {
    /// The parsed query as forms write it (`FormQuery`), read in place (a repeated name counts
    /// once, the first time).
    private let parameters: FlatDictionary<Substring, Substring>
    /// The query with `+` kept as a plus, for numbers (`numberText`); parsed when one is read.
    private let request: Request
    private(set) var errors: [FieldError] = []

    init(_ request: Request) {
        self.request = request
        parameters = request.formQuery
    }

    /// Whether `text` holds a control character (C0, DEL or C1; a query has no line breaks).
    static func hasControlCharacter(_ text: Substring) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }
    }

    private func value(_ name: String) -> Substring? { parameters[name[...]] }

    /// The text of a parameter, if present. Text with a control character is an error of its
    /// field (once): no such text reaches a comparison or storage (`category=burger%00x` found
    /// `burger` where a NUL cut the text). Parameters no route reads are never looked at.
    mutating func text(_ name: String) -> String? {
        guard let text = value(name) else { return nil }
        if Self.hasControlCharacter(text), !errors.contains(where: { $0.field == name }) {
            fail(name, "control_characters", .fieldControlCharacters)
        }
        return String(text)
    }

    /// A text filter: absent is `nil`; present, it must not be empty.
    mutating func filter(_ name: String) -> String? {
        guard let text = text(name) else { return nil }
        if text.isEmpty { fail(name, "empty", .fieldEmpty) }
        return text
    }

    mutating func fail(_ name: String, _ code: String, _ key: MessageKey, _ arguments: [String: String] = [:]) {
        errors.append(FieldError(field: name, code: code, key, arguments))
    }

    /// A number parameter's text: a `+` written as is is its sign (`lng=+127.`), not a space, as
    /// no number holds a space; `%20` stays a space (and not a number).
    private func numberText(_ name: String) -> Substring? {
        guard let text = value(name) else { return nil }
        guard text.utf8.contains(UInt8(ascii: " ")) else { return text }
        return request.uri.queryParameters[name[...]] ?? text
    }

    /// A finite number within `range`; `fallback` when absent (a missing required one is an error).
    /// A parameter that is present with an empty value (`limit=`) is malformed, not absent: a
    /// client that meant "no value" leaves the parameter out.
    mutating func double(_ name: String, in range: ClosedRange<Double>, default fallback: Double? = nil) -> Double {
        guard let text = value(name) else {
            if let fallback { return fallback }
            fail(name, "required", .fieldRequired)
            return range.lowerBound
        }
        guard let value = Double(decimal: numberText(name) ?? text) else {
            fail(name, "not_a_number", .fieldNotNumber)
            return range.lowerBound
        }
        guard range.contains(value) else {
            fail(
                name, "out_of_range", .fieldOutOfRange,
                ["min": Self.format(range.lowerBound), "max": Self.format(range.upperBound)])
            return range.lowerBound
        }
        return value
    }

    /// An optional finite number within `range`.
    mutating func optionalDouble(_ name: String, in range: ClosedRange<Double>) -> Double? {
        guard value(name) != nil else { return nil }
        return double(name, in: range)
    }

    /// A whole number within `range`, or `fallback` when absent (a missing required one is an
    /// error).
    mutating func int(_ name: String, in range: ClosedRange<Int>, default fallback: Int? = nil) -> Int {
        guard let text = value(name) else {
            if let fallback { return fallback }
            fail(name, "required", .fieldRequired)
            return range.lowerBound
        }
        guard let value = Int(numberText(name) ?? text) else {
            fail(name, "not_an_integer", .fieldNotInteger)
            return fallback ?? range.lowerBound
        }
        guard range.contains(value) else {
            fail(name, "out_of_range", .fieldOutOfRange, ["min": "\(range.lowerBound)", "max": "\(range.upperBound)"])
            return fallback ?? range.lowerBound
        }
        return value
    }

    /// `true` or `false` (also `1`/`0`), or `false` when absent.
    mutating func bool(_ name: String) -> Bool {
        guard let text = value(name) else { return false }
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default:
            fail(name, "not_a_boolean", .fieldNotBoolean)
            return false
        }
    }

    /// Fails every parameter whose name is not in `known` (`unknown_parameter`), for routes whose
    /// contract refuses what they do not understand (OGC API – Features' items). Each name once,
    /// cut to 64 characters in the answer.
    mutating func rejectUnknown(_ known: Set<String>) {
        var seen: Set<Substring> = []
        for (name, _) in parameters where !known.contains(String(name)) && seen.insert(name).inserted {
            fail(String(name.prefix(64)), "unknown_parameter", .parameterUnknown)
        }
    }

    /// Throws a `validation_failed` problem when any parameter read so far was invalid.
    func validate() throws {
        if !errors.isEmpty { throw Problem.validation(errors) }
    }

    /// A number as people write it: no trailing ".0".
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
