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
    /// An `Idempotency-Key` used again, within its 24 hours, for another request (another
    /// method, path or body): `422`, and nothing stored or replayed (the IETF draft's rule).
    case idempotencyKeyReused = "idempotency_key_reused"
    case payloadTooLarge = "payload_too_large"
    case unsupportedMediaType = "unsupported_media_type"
    case rateLimited = "rate_limited"
    case notImplemented = "not_implemented"
    case expectationFailed = "expectation_failed"
    case `internal`
    /// The service cannot answer for now (`503` with `Retry-After`): the database cannot be
    /// reached, or every slot for a search of two characters is taken.
    case serviceUnavailable = "service_unavailable"
    /// A write failed because the disk that holds the database or the photos is full (`503` with
    /// `Retry-After`; `/health` answers the same until a write succeeds again).
    case storageFull = "storage_full"
    /// A write failed because the database or the photo folder is read-only (`503` with
    /// `Retry-After`; `/health` answers the same until a write succeeds again).
    case storageReadOnly = "storage_read_only"
    /// An upload's photos were written to the object store so long before the rest of the form
    /// arrived that they may be swept as abandoned (`408`): nothing was saved; send it again.
    case requestTimeout = "request_timeout"
}

/// One invalid input field of a `validation_failed` problem.
public struct FieldError: Sendable, Equatable {
    /// The field's name as the client sent it (`snake_case`, dotted for nested fields).
    public var field: String
    /// A stable machine-readable reason, for example `required` or `out_of_range`.
    public var code: String
    public var message: Message

    public init(field: String, code: String, message: Message) {
        self.field = field
        self.code = code
        self.message = message
    }

    /// A field error whose message names the field, for example "lat is required".
    public init(field: String, code: String, _ key: MessageKey, _ arguments: [String: String] = [:]) {
        self.init(field: field, code: code, message: Message(key, arguments.merging(["field": field]) { $1 }))
    }
}
