import BurgerMapCore
import Foundation
import Hummingbird

extension Request {
    /// Reads a JSON request body of at most `limit` bytes as `T`, answering the contract's
    /// problems for everything a client can get wrong: another media type (`415`), a body over the
    /// limit (`413`), bytes that are not UTF-8 JSON or not strict JSON (`invalid_json`: a trailing
    /// comma, a key given twice), fields of the wrong JSON type or holding control characters
    /// (`validation_failed`, naming the field).
    func decodeJSON<T: Decodable>(as type: T.Type, limit: Int = 64 * 1024) async throws -> T {
        try await decodeJSONWithBytes(as: type, limit: limit).value
    }

    /// `decodeJSON`, with the body's bytes (for a member whose keys are data, such as `names`,
    /// which the snake-case key strategy must not rewrite: see `PlaceNamesBody`).
    func decodeJSONWithBytes<T: Decodable>(as type: T.Type, limit: Int = 64 * 1024) async throws -> (
        value: T, bytes: Data
    ) {
        if let contentType = headers[.contentType] {
            let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard let mediaType, mediaType == "application/json" || mediaType.hasSuffix("+json") else {
                throw Problem(.unsupportedMediaType, .mediaTypeNotSupported, ["expected": "application/json"])
            }
        }
        // Over the limit, `collect` throws NIOTooManyBytesError, which ProblemMiddleware answers `413`.
        let buffer = try await body.collect(upTo: limit)
        let bytes = Data(buffer: buffer)
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw Problem(.invalidJSON, .invalidJSON)
        }
        // What Foundation's decoder would let through: trailing commas, keys given twice, control
        // characters written as escapes (`StrictJSON`).
        switch StrictJSON.check(bytes) {
        case nil: break
        case .syntax, .duplicateKey: throw Problem(.invalidJSON, .invalidJSON)
        case .controlCharacters(let fields):
            // Before the fields' own rules: such bytes are never a valid value of any field.
            throw Problem.validation(
                fields.map { FieldError(field: $0, code: "control_characters", .fieldControlCharacters) })
        }
        do {
            return (try JSONCoding.decoder.decode(T.self, from: bytes), bytes)
        } catch let error as DecodingError {
            throw Self.problem(for: error, decoding: T.self, from: bytes)
        }
    }

    /// How many times a failed body is decoded again to find its other wrong fields: each
    /// decoding stops at the first, and only fields the body's type reads can be wrong (a dozen
    /// or so), so this bounds the work of a body of many wrong array items.
    static let maxDecodingsForErrors = 32

    /// The problem of a body that did not decode: every field of the wrong type or missing,
    /// found by decoding again without each field found so far (`validation_failed` lists the
    /// first 20 and counts the rest), or `invalid_json` when the body is not a JSON object.
    private static func problem<T: Decodable>(for first: DecodingError, decoding type: T.Type, from bytes: Data)
        -> Problem
    {
        guard let found = fieldError(for: first) else { return Problem(.invalidJSON, .invalidJSON) }
        var errors = [found.error]
        var path = found.path
        var seen: Set<String> = [found.error.field]
        guard var body = (try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])) else {
            return Problem.validation(errors)
        }
        for _ in 1..<maxDecodingsForErrors {
            guard Self.remove(path, from: &body),
                let next = try? JSONSerialization.data(withJSONObject: body, options: [.fragmentsAllowed])
            else { break }
            do {
                _ = try JSONCoding.decoder.decode(T.self, from: next)
                break
            } catch let error as DecodingError {
                guard let found = Self.fieldError(for: error), seen.insert(found.error.field).inserted else { break }
                path = found.path
                errors.append(found.error)
            } catch {
                break
            }
        }
        return Problem.validation(errors)
    }

    /// The field error of a decoding error and the path of its value, or `nil` when the body
    /// itself is wrong (not an object, not JSON).
    private static func fieldError(for error: DecodingError) -> (error: FieldError, path: [any CodingKey])? {
        func field(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map(String.init) ?? snakeCase($0.stringValue) }.joined(separator: ".")
        }
        func invalid(_ path: [any CodingKey], _ code: String, _ key: MessageKey, _ arguments: [String: String] = [:])
            -> (FieldError, [any CodingKey])
        {
            (FieldError(field: field(path), code: code, key, arguments), path)
        }
        switch error {
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            // Not an object at the top level.
            return nil
        case .typeMismatch(let type, let context):
            return invalid(context.codingPath, "wrong_type", .fieldWrongType, ["expected": jsonName(of: type)])
        case .valueNotFound(_, let context):
            return invalid(context.codingPath, "required", .fieldRequired)
        case .keyNotFound(let key, let context):
            return invalid(context.codingPath + [key], "required", .fieldRequired)
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return invalid(context.codingPath, "wrong_type", .fieldWrongType, ["expected": "valid"])
        default:
            return nil
        }
    }

    /// Takes the value at `path` out of a parsed body (an array item becomes null, so that the
    /// items after it keep their indexes); `false` when there is none.
    private static func remove(_ path: [any CodingKey], from value: inout Any) -> Bool {
        guard let key = path.first else { return false }
        if let index = key.intValue {
            guard var array = value as? [Any], array.indices.contains(index) else { return false }
            if path.count == 1 {
                if array[index] is NSNull { return false }
                array[index] = NSNull()
            } else if !remove(Array(path.dropFirst()), from: &array[index]) {
                return false
            }
            value = array
            return true
        }
        guard var object = value as? [String: Any] else { return false }
        // The decoder reads snake_case keys into camelCase names.
        guard let name = [snakeCase(key.stringValue), key.stringValue].first(where: { object[$0] != nil }) else {
            return false
        }
        if path.count == 1 {
            object[name] = nil
        } else {
            guard var inner = object[name], remove(Array(path.dropFirst()), from: &inner) else { return false }
            object[name] = inner
        }
        value = object
        return true
    }

    /// How a JSON client would name the expected type.
    private static func jsonName(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type, is Decimal.Type: "a number"
        case is any Sequence.Type: "an array"
        default: "an object"
        }
    }

    /// `refreshToken` → `refresh_token`: field names as the client wrote them.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// Collects the problems of a decoded body whose fields are all optional, so that one answer
/// names every missing or invalid field.
struct BodyValidator {
    private(set) var errors: [FieldError] = []

    /// The value of a required field, recording `required` when it is missing.
    mutating func required<T>(_ value: T?, _ field: String) -> T? {
        if value == nil { errors.append(FieldError(field: field, code: "required", .fieldRequired)) }
        return value
    }

    /// Runs a rule that appends its own field errors.
    mutating func check(_ rule: (inout [FieldError]) -> Void) {
        rule(&errors)
    }

    /// Throws `validation_failed` with every recorded field error.
    func validate() throws {
        if !errors.isEmpty { throw Problem.validation(errors) }
    }
}
