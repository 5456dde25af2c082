import Foundation
import HTTPTypes
import Hummingbird

/// The stable, machine-readable error codes of the API contract.
public enum ProblemCode: String, Sendable, CaseIterable, Codable {
    case validationFailed = "validation_failed"
    case invalidJSON = "invalid_json"
    case invalidCursor = "invalid_cursor"
    case invalidImage = "invalid_image"
    case unauthorized
    case tokenExpired = "token_expired"
    case invalidCredentials = "invalid_credentials"
    case refreshTokenInvalid = "refresh_token_invalid"
    case forbidden
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case conflict
    case payloadTooLarge = "payload_too_large"
    case unsupportedMediaType = "unsupported_media_type"
    case rateLimited = "rate_limited"
    case `internal`

    /// The HTTP status that goes with the code.
    public var status: HTTPResponse.Status {
        switch self {
        case .validationFailed, .invalidJSON, .invalidCursor, .invalidImage: .badRequest
        case .unauthorized, .tokenExpired, .invalidCredentials, .refreshTokenInvalid: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict: .conflict
        case .payloadTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .rateLimited: .tooManyRequests
        case .internal: .internalServerError
        }
    }

    /// The short human title of the code.
    public var title: String {
        switch self {
        case .validationFailed: "Validation failed"
        case .invalidJSON: "Invalid JSON"
        case .invalidCursor: "Invalid cursor"
        case .invalidImage: "Invalid image"
        case .unauthorized: "Authentication required"
        case .tokenExpired: "Access token expired"
        case .invalidCredentials: "Invalid email or password"
        case .refreshTokenInvalid: "Refresh token invalid"
        case .forbidden: "Forbidden"
        case .notFound: "Not found"
        case .methodNotAllowed: "Method not allowed"
        case .conflict: "Conflict"
        case .payloadTooLarge: "Payload too large"
        case .unsupportedMediaType: "Unsupported media type"
        case .rateLimited: "Too many requests"
        case .internal: "Internal server error"
        }
    }
}

/// One invalid input field of a `validation_failed` problem.
public struct FieldError: Codable, Sendable, Equatable {
    public var field: String
    public var code: String
    public var message: String

    public init(field: String, code: String, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }
}

/// An RFC 9457 problem document: every error the service answers is one of these.
public struct Problem: HTTPResponseError, Sendable {
    public var code: ProblemCode
    public var detail: String
    public var errors: [FieldError]
    /// Extra response headers (for example `Retry-After`).
    public var headers: HTTPFields

    public init(_ code: ProblemCode, _ detail: String, errors: [FieldError] = [], headers: HTTPFields = [:]) {
        self.code = code
        self.detail = detail
        self.errors = errors
        self.headers = headers
    }

    public var status: HTTPResponse.Status { code.status }

    /// A `validation_failed` problem for the given fields.
    public static func validation(_ errors: [FieldError]) -> Problem {
        Problem(
            .validationFailed,
            errors.count == 1 ? errors[0].message : "\(errors.count) fields are invalid.",
            errors: errors)
    }

    /// A `not_found` problem for a missing object.
    public static func notFound(_ kind: String, id: Int64) -> Problem {
        Problem(.notFound, "No \(kind) has id \(id).")
    }

    /// The JSON body of the problem document.
    struct Body: Encodable {
        var type = "about:blank"
        var title: String
        var status: Int
        var code: ProblemCode
        var detail: String
        var errors: [FieldError]?
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(
            title: code.title, status: Int(status.code), code: code, detail: detail,
            errors: errors.isEmpty ? nil : errors)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(
            status: status, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(body))))
    }
}
