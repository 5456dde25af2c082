import Hummingbird
import Logging

/// The account routes under `/v1/auth`: register, login, refresh, logout.
struct AuthController {
    let store: any AccountStore
    let accounts: AccountServices

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("register", use: register)
        routes.post("login", use: login)
        routes.post("refresh", use: refresh)
        routes.signedIn(AccessTokenMiddleware(tokens: accounts.accessTokens, accounts: store))
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
        var validator = BodyValidator()
        let email = validator.required(body.email, "email")
        let password = validator.required(body.password, "password")
        let nickname = validator.required(body.nickname, "nickname")
        if let email { validator.check { AccountRules.checkEmail(email, into: &$0) } }
        if let password { validator.check { AccountRules.checkPassword(password, into: &$0) } }
        if let nickname { validator.check { AccountRules.checkNickname(nickname, into: &$0) } }
        try validator.validate()
        guard let email, let password, let nickname else { throw Problem.validation([]) }
        // Spare the bcrypt when the answer is already known; the unique index still decides races.
        if let conflict = try await store.accountExists(email: email, nickname: nickname) {
            throw Self.problem(for: conflict)
        }
        let hash = try await accounts.passwords.hash(password)
        let user: User
        do {
            user = try await store.createUser(email: email, passwordHash: hash, nickname: nickname, at: .now())
        } catch let conflict as AccountConflict {
            throw Self.problem(for: conflict)
        }
        context.logger.info("account created", metadata: ["user_id": "\(user.id)"])
        return try await accounts.startLogin(for: user, store: store)
            .response(status: .created, headers: [.location: "/v1/users/\(user.id)"])
    }

    static func problem(for conflict: AccountConflict) -> Problem {
        switch conflict {
        case .email: Problem(.conflict, .emailTaken)
        case .nickname: Problem(.conflict, .nicknameTaken)
        }
    }

    struct LoginBody: Decodable {
        var email: String?
        var password: String?
    }

    /// `POST /v1/auth/login`: Tokens for a correct email and password. A wrong password and an
    /// unknown email get the same answer after the same bcrypt work; repeated failures per
    /// (email, client) or per client answer `429` with `Retry-After` (see `LoginThrottle`).
    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: LoginBody.self)
        var validator = BodyValidator()
        let email = validator.required(body.email, "email")
        let password = validator.required(body.password, "password")
        try validator.validate()
        guard let email, let password else { throw Problem.validation([]) }
        if let wait = try await accounts.throttle.retryAfter(email: email, client: context.clientKey) {
            throw Problem(
                .rateLimited, .tooManyLoginAttempts, ["seconds": "\(wait)"], headers: [.retryAfter: "\(wait)"])
        }
        let stored = password.utf8.count <= 1024 ? try await store.credentials(email: email) : nil
        guard try await accounts.passwords.verify(password, against: stored?.passwordHash), let user = stored?.user
        else {
            let engaged = try await accounts.throttle.recordFailure(email: email, client: context.clientKey)
            context.logger.info("login failed")
            for block in engaged {
                var metadata: Logger.Metadata = [
                    "limit": "\(block.kind.rawValue)", "client": "\(context.clientText)",
                    "retry_after": "\(block.retryAfter)", "round": "\(block.round)",
                ]
                if let hash = block.accountHash { metadata["account"] = "\(hash)" }
                context.logger.notice("login limit engaged", metadata: metadata)
            }
            throw Problem(.invalidCredentials, .invalidCredentials)
        }
        try await accounts.throttle.recordSuccess(email: email, client: context.clientKey)
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
