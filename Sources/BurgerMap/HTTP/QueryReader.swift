import BurgerMapCore
import Hummingbird
import HummingbirdCore

/// Reads and validates query parameters, collecting every invalid field so that one answer
/// tells the client all that is wrong.
struct QueryReader {
    /// Hummingbird's parsed query, read in place (a repeated name counts once, the first time).
    private let parameters: FlatDictionary<Substring, Substring>
    private(set) var errors: [FieldError] = []

    init(_ request: Request) {
        parameters = request.formQuery
    }

    private func value(_ name: String) -> Substring? { parameters[name[...]] }

    /// The raw text of a parameter, if present.
    func text(_ name: String) -> String? { value(name).map(String.init) }

    /// A text filter: absent is `nil`; present, it must not be empty.
    mutating func filter(_ name: String) -> String? {
        guard let text = value(name) else { return nil }
        if text.isEmpty { fail(name, "empty", .fieldEmpty) }
        return String(text)
    }

    mutating func fail(_ name: String, _ code: String, _ key: MessageKey, _ arguments: [String: String] = [:]) {
        errors.append(FieldError(field: name, code: code, key, arguments))
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
        guard let value = Double(decimal: text) else {
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
        guard let value = Int(text) else {
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
