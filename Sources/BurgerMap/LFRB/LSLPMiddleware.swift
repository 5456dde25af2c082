import BurgerMapCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// An error of the LookForRealBurger routes: a status of the app's backend (`420`, `418`, `410`,
/// `445`…) and a sentence of the catalogue.
struct LSLPError: Error {
    var status: Int
    var message: Message
    var headers: HTTPFields = [:]

    init(_ status: Int, _ key: MessageKey, _ arguments: [String: String] = [:]) {
        self.status = status
        message = Message(key, arguments)
    }
}

/// Answers every error of the LookForRealBurger routes as the app's backend did: the status the
/// app understands and `{"message": "…"}` in the request's language (the app shows some of these
/// as toasts). The service's own problems map onto those statuses: an expired access token is
/// `419`, anything missing `410`, invalid input `400`, a taken email or nickname `409`.
/// Errors that are the service's fault go on to `ProblemMiddleware` (`500`, logged).
struct LSLPErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as LSLPError {
            return Self.response(error, request)
        } catch let problem as Problem {
            guard problem.code != .internal, problem.code != .serviceUnavailable else { throw problem }
            var error = LSLPError(Self.status(of: problem), .fieldsInvalid)
            error.message = problem.message
            error.headers = problem.headers
            error.headers[.wwwAuthenticate] = nil
            return Self.response(error, request)
        } catch is DecodingError {
            return Self.response(LSLPError(400, .invalidJSON), request)
        }
    }

    /// The app's status for a problem of the native routes.
    static func status(of problem: Problem) -> Int {
        switch problem.code {
        case .tokenExpired: 419
        case .unauthorized, .invalidCredentials, .refreshTokenInvalid: 401
        case .notFound: 410
        case .forbidden: 403
        case .conflict: 409
        case .rateLimited: 429
        case .validationFailed, .invalidJSON, .invalidCursor, .invalidImage, .payloadTooLarge,
            .unsupportedMediaType:
            400
        default: Int(problem.status.code)
        }
    }

    static func response(_ error: LSLPError, _ request: Request) -> Response {
        var writer = JSONWriter(capacity: 128)
        writer.object { writer in
            writer.key("message")
            writer.value(error.message.text(in: Language.of(request)))
        }
        return writer.response(status: HTTPResponse.Status(code: error.status), headers: error.headers)
    }
}

/// Refuses a request of the LookForRealBurger routes without the configured `SesacKey` (`420`).
struct LSLPKeyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let key: String

    static let header = HTTPField.Name("SesacKey")!

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // Compared as digests, in constant time: the key is a secret the app ships.
        guard let sent = request.headers[Self.header],
            Array(SHA256.hash(data: Data(sent.utf8))) == Array(SHA256.hash(data: Data(key.utf8)))
        else {
            throw LSLPError(420, .lslpKeyInvalid)
        }
        return try await next(request, context)
    }
}

/// Reads the app's bare access token (`Authorization: <token>`, no `Bearer`) and puts its user
/// into the context, as `AccessTokenMiddleware` does for `Bearer` tokens. No header, or an empty
/// one (the app sends `""` before its first login): anonymous, and routes that need a user answer
/// `401`. An expired token: `419`, which makes the app refresh and retry. Anything else that is
/// not a token of this service, `Bearer`-prefixed ones included: `401`.
struct LSLPTokenMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let tokens: AccessTokens
    /// The token's user, with its standing.
    let users: SignedInUsers
    /// The recent writers of read-your-writes routing (as `AccessTokenMiddleware`); `nil`
    /// without read replicas.
    var writers: RecentWriters? = nil

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let token = request.headers[.authorization], !token.isEmpty else {
            return try await next(request, context)
        }
        switch try await TokenIdentity(token, tokens: tokens, users: users) {
        case .expired: throw LSLPError(419, .accessTokenExpired)
        case .invalid: throw LSLPError(401, .accessTokenInvalid)
        case .suspended: throw LSLPError(403, .accountSuspended)
        case .user(let user, let isModerator):
            var context = context
            context.identity = user
            context.identityIsModerator = isModerator
            guard let writers, request.method.mayWrite else { return try await next(request, context) }
            defer { writers.noteWrite(by: user.id) }
            return try await next(request, context)
        }
    }
}
