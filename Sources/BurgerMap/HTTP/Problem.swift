import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird

extension ProblemCode {
    /// The HTTP status that goes with the code.
    public var status: HTTPResponse.Status {
        switch self {
        case .validationFailed, .invalidJSON, .invalidCursor, .invalidImage: .badRequest
        case .unauthorized, .tokenExpired, .invalidCredentials, .refreshTokenInvalid: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict: .conflict
        case .idempotencyKeyReused: .unprocessableContent
        case .payloadTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .rateLimited: .tooManyRequests
        case .notImplemented: .notImplemented
        case .expectationFailed: .expectationFailed
        case .internal: .internalServerError
        case .serviceUnavailable, .storageFull, .storageReadOnly: .serviceUnavailable
        case .requestTimeout: .requestTimeout
        }
    }
}

/// An RFC 9457 problem document: every error the service answers is one of these. The title
/// comes from the code and the detail from a `Message`, both in the request's language.
public struct Problem: HTTPResponseError, Sendable {
    public var code: ProblemCode
    public var message: Message
    public var errors: [FieldError]
    /// Extra response headers (for example `Retry-After`).
    public var headers: HTTPFields

    public init(_ code: ProblemCode, _ message: Message, errors: [FieldError] = [], headers: HTTPFields = [:]) {
        self.code = code
        self.message = message
        self.errors = errors
        self.headers = headers
    }

    public init(
        _ code: ProblemCode, _ key: MessageKey, _ arguments: [String: String] = [:], headers: HTTPFields = [:]
    ) {
        self.init(code, Message(key, arguments), headers: headers)
    }

    public var status: HTTPResponse.Status { code.status }

    /// The most field errors one answer lists; the detail gives the whole count.
    public static let listedFieldErrors = 20

    /// A `validation_failed` problem for the given fields (the first `listedFieldErrors` of them,
    /// then the number left out in `errors_omitted`).
    public static func validation(_ errors: [FieldError]) -> Problem {
        Problem(
            .validationFailed,
            errors.count == 1 ? errors[0].message : Message(.fieldsInvalid, ["count": "\(errors.count)"]),
            errors: errors)
    }

    /// A `validation_failed` problem for one field.
    public static func invalid(
        _ field: String, _ code: String, _ key: MessageKey, _ arguments: [String: String] = [:]
    ) -> Problem {
        validation([FieldError(field: field, code: code, key, arguments)])
    }

    /// A `not_found` problem for a missing object.
    public static func notFound(_ key: MessageKey, id: some CustomStringConvertible) -> Problem {
        Problem(.notFound, key, ["id": String("\(id)".prefix(40))])
    }

    /// The JSON body of the problem document.
    struct Body: Encodable {
        struct Field: Encodable {
            var field: String
            var code: String
            var message: String
        }
        var type = "about:blank"
        var title: String
        var status: Int
        var code: ProblemCode
        var detail: String
        var errors: [Field]?
        var errorsOmitted: Int?

        enum CodingKeys: String, CodingKey {
            case type, title, status, code, detail, errors
            case errorsOmitted = "errors_omitted"
        }
    }

    /// The body and headers in `language`.
    func response(in language: Language) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        headers[.contentLanguage] = language.rawValue
        headers[.vary] = "Accept-Language"
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encodedBody(in: language))))
    }

    /// The JSON document in `language`.
    func encodedBody(in language: Language) throws -> Data {
        let fields = errors.prefix(Self.listedFieldErrors).map {
            Body.Field(field: $0.field, code: $0.code, message: $0.message.text(in: language))
        }
        let omitted = errors.count - fields.count
        let body = Body(
            title: ProblemCatalog.title(status: Int(status.code), language), status: Int(status.code), code: code,
            detail: message.text(in: language), errors: fields.isEmpty ? nil : fields,
            errorsOmitted: omitted > 0 ? omitted : nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(body)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try response(in: Language.of(request))
    }
}
