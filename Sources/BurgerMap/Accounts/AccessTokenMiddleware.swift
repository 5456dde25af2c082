import BurgerMapCore
import Hummingbird

/// Reads `Authorization: Bearer <access token>` and puts the user it names into the context.
///
/// No header: the request goes on anonymously (the route decides whether that is enough).
/// A header that is not a Bearer token, a token that is forged, malformed, signed with another
/// key or for a user who no longer exists: `401 unauthorized`. An expired token: `401
/// token_expired` with `WWW-Authenticate: Bearer error="invalid_token"`, so that the client
/// refreshes instead of sending its user to the login screen. A bad token is refused even on
/// routes where signing in is optional: the client asked to be someone, and should learn that
/// it is not.
///
/// With read replicas, a signed-in request that may write (any method but GET, HEAD and
/// OPTIONS) notes its user in `writers` when its handler is done, before the answer goes out:
/// the user's next reads go to the primary at once, on this instance (the others learn it from
/// the event log).
struct AccessTokenMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let tokens: AccessTokens
    /// The token's user, with its standing.
    let users: SignedInUsers
    /// The recent writers of read-your-writes routing; `nil` without read replicas.
    var writers: RecentWriters? = nil

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let authorization = request.headers[.authorization] else {
            return try await next(request, context)
        }
        guard let token = Request.bearerToken(authorization) else {
            throw Problem(.unauthorized, .authorizationNotBearer, headers: [.wwwAuthenticate: "Bearer"])
        }
        let invalid = Problem(
            .unauthorized, .accessTokenInvalid, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        switch try await TokenIdentity(token, tokens: tokens, users: users) {
        case .expired:
            throw Problem(
                .tokenExpired, .accessTokenExpired,
                headers: [
                    .wwwAuthenticate: "Bearer error=\"invalid_token\", error_description=\"The access token expired\""
                ])
        case .invalid:
            throw invalid
        case .suspended:
            throw Problem(.forbidden, .accountSuspended)
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

extension HTTPRequest.Method {
    /// Whether a request of this method may write: anything but GET, HEAD and OPTIONS.
    var mayWrite: Bool { self != .get && self != .head && self != .options }
}

/// What an access token names, as both token middlewares (this one and the LookForRealBurger
/// routes' `LSLPTokenMiddleware`) read it; each answers the failures in its own statuses.
enum TokenIdentity {
    case user(User, isModerator: Bool)
    /// Well signed, past its expiry: the client should refresh.
    case expired
    /// Not a token of this service, or its account is gone.
    case invalid
    /// The account is suspended: its tokens are refused at once (the standing comes with the user, `SignedInUsers`).
    case suspended

    init(_ token: String, tokens: AccessTokens, users: SignedInUsers) async throws {
        switch await tokens.verify(token) {
        case .failure(.expired): self = .expired
        case .failure(.invalid): self = .invalid
        case .success(let userID):
            guard let (user, standing) = try await users.user(id: userID) else {
                self = .invalid
                return
            }
            self = standing.suspendedAt == nil ? .user(user, isModerator: standing.isModerator) : .suspended
        }
    }
}

extension RouteCollection where Context == AppRequestContext {
    /// The group of routes that need a signed-in user: behind `authentication`, their handlers
    /// get an `AuthenticatedContext` (a request without a valid token is `401` before they run).
    func signedIn(_ authentication: AccessTokenMiddleware) -> RouterGroup<AuthenticatedContext> {
        group().add(middleware: authentication).group(context: AuthenticatedContext.self)
    }
}

extension Request {
    /// The token of an `Authorization: Bearer` header, if it has one.
    var bearerToken: String? { headers[.authorization].flatMap(Self.bearerToken) }

    /// The token of an `Authorization` value of the Bearer scheme (case-insensitive).
    static func bearerToken(_ authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
