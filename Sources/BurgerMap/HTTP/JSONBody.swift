import Foundation
import Hummingbird

extension Request {
    /// Reads a JSON request body of at most `limit` bytes as `T`, answering the contract's
    /// problems for everything a client can get wrong: another media type (`415`), a body over the
    /// limit (`413`), bytes that are not UTF-8 JSON (`invalid_json`), and fields of the wrong JSON
    /// type (`validation_failed`, naming the field).
    func decodeJSON<T: Decodable>(as type: T.Type, limit: Int = 64 * 1024) async throws -> T {
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
        do {
            return try JSONCoding.decoder.decode(T.self, from: bytes)
        } catch let error as DecodingError {
            throw Self.problem(for: error)
        }
    }

    private static func problem(for error: DecodingError) -> Problem {
        func field(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map(String.init) ?? snakeCase($0.stringValue) }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            // Not an object at the top level.
            return Problem(.invalidJSON, .invalidJSON)
        case .typeMismatch(let type, let context):
            return .invalid(field(context.codingPath), "wrong_type", .fieldWrongType, ["expected": jsonName(of: type)])
        case .valueNotFound(_, let context):
            return .invalid(field(context.codingPath), "required", .fieldRequired)
        case .keyNotFound(let key, let context):
            return .invalid(field(context.codingPath + [key]), "required", .fieldRequired)
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return .invalid(field(context.codingPath), "wrong_type", .fieldWrongType, ["expected": "valid"])
        default:
            return Problem(.invalidJSON, .invalidJSON)
        }
    }

    /// How a JSON client would name the expected type.
    private static func jsonName(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
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
