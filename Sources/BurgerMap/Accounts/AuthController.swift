import BurgerMapCore
import Hummingbird
import Logging

/// The account routes under `/v1/auth`: register, login, refresh, logout.
struct AuthController {
    let store: any AccountStore
    let accounts: AccountServices
    let authentication: AccessTokenMiddleware

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("register", use: register)
        routes.post("login", use: login)
        routes.post("refresh", use: refresh)
        routes.signedIn(authentication)
            .post("logout", use: logout)
        return routes
    }

    struct RegisterBody: Decodable {
        var email: String?
        var password: String?
        var nickname: String?
    }

    /// `POST /v1/auth/register`: a new account, signed in (`201` Tokens).
    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: RegisterBody.self)
        let user = try await accounts.register(
            email: body.email, password: body.password, nickname: body.nickname, store: store, logger: context.logger)
        return try await accounts.startLogin(for: user, store: store)
            .response(status: .created, headers: [.location: "/v1/users/\(user.id)"])
    }

    struct LoginBody: Decodable {
        var email: String?
        var password: String?
    }

    /// `POST /v1/auth/login`: Tokens for a correct email and password (`AccountServices.authenticate`).
    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: LoginBody.self)
        let user = try await accounts.authenticate(
            email: body.email, password: body.password, store: store, client: context.clientKey,
            clientText: context.clientText, logger: context.logger)
        return try await accounts.startLogin(for: user, store: store).response()
    }

    struct RefreshBody: Decodable {
        var refreshToken: String?
    }

    /// `POST /v1/auth/refresh`: a new access token and a new refresh token for a good refresh
    /// token, which stops working. The same token again within the grace period, before its
    /// successor is used, answers the same successor (a retry of a lost answer); otherwise an
    /// already used one revokes its whole login.
    @Sendable func refresh(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try await Self.refreshToken(in: request)
        let next = RefreshTokens.successor(of: token, key: accounts.successorKey)
        let outcome = try await store.rotateRefreshToken(
            RefreshTokens.hash(token), to: RefreshTokens.hash(next), expiresAt: accounts.refreshExpiry(),
            grace: accounts.refreshGrace, at: .now())
        switch outcome {
        case .rotated(let userID), .retried(let userID):
            if case .retried = outcome { context.logger.info("refresh retried within the grace period") }
            guard let user = try await store.user(id: userID) else {
                throw Problem(.refreshTokenInvalid, .refreshTokenInvalid)
            }
            return try await accounts.tokens(for: user, refreshToken: next, store: store).response()
        case .reused:
            context.logger.warning("refresh token reused: login revoked")
            throw Problem(.refreshTokenInvalid, .refreshTokenInvalid)
        case .invalid:
            throw Problem(.refreshTokenInvalid, .refreshTokenInvalid)
        }
    }

    /// The `refresh_token` field of a body.
    private static func refreshToken(in request: Request) async throws -> String {
        let body = try await request.decodeJSON(as: RefreshBody.self)
        var validator = BodyValidator()
        let token = validator.required(body.refreshToken, "refresh_token")
        try validator.validate()
        return token ?? ""
    }

    /// `POST /v1/auth/logout`: the login of the given refresh token ends (`204`); the token
    /// must be the caller's.
    @Sendable func logout(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let token = try await Self.refreshToken(in: request)
        guard try await store.endLogin(tokenHash: RefreshTokens.hash(token), userID: context.user.id, at: .now()) else {
            throw Problem(.refreshTokenInvalid, .refreshTokenInvalid)
        }
        return Response(status: .noContent)
    }
}
