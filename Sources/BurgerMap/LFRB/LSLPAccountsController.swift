import BurgerMapCore
import HTTPTypes
import Hummingbird

/// The app's account routes: join, email check, login, refresh, profiles and follows, on the
/// same rules as the native ones (`AccountServices.register`, `authenticate`).
struct LSLPAccountsController {
    let accounts: any AccountStore
    let social: any SocialStore
    let posts: any PostStore
    let services: AccountServices
    /// How often a user may follow or unfollow.
    let writes: WriteLimiter
    /// Blocks: no follow between users who block one another.
    let blocks: any BlockStore
    /// Where a withdrawn account's photo files are deleted.
    let media: MediaServices

    /// Routes under `/v1` (the group carries the key and error middleware).
    func addRoutes(to group: RouterGroup<AppRequestContext>, authentication: LSLPTokenMiddleware) {
        group.post("users/join", use: join)
        group.post("validation/email", use: validateEmail)
        group.post("users/login", use: login)
        group.get("auth/refresh", use: refresh)
        let signedIn = group.group().add(middleware: authentication).group(context: AuthenticatedContext.self)
        signedIn.get("users/me/profile") { _, context in
            try await profile(of: context.user, includesEmail: true, viewer: context.user.id)
        }
        signedIn.get("users/:id/profile") { _, context in
            try await profile(
                of: try await user(context.parameters.get("id")), includesEmail: false, viewer: context.user.id)
        }
        signedIn.get("users/withdraw", use: withdraw)
        signedIn.post("follow/:id") { _, context in try await follow(true, context) }
        signedIn.delete("follow/:id") { _, context in try await follow(false, context) }
    }

    /// `GET /v1/users/withdraw`: deletes the caller's account as `DELETE /v1/users/me` does (one
    /// transaction, files after it) and answers `{user_id, email, nick}` of the account that was.
    /// The app's backend takes no password here, so neither does this route: the app shows it
    /// as a button to drag, and a stolen access token lives five minutes. (The app never calls it.)
    @Sendable func withdraw(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try await AccountDataController.deleteAccount(
            context.user.id, accounts: accounts, media: media, logger: context.logger)
        var writer = JSONWriter(capacity: 128)
        writer.object { writer in Self.writeAccount(context.user, to: &writer) }
        return writer.response()
    }

    struct JoinBody: Decodable {
        var email: String?
        var password: String?
        var nick: String?
    }

    /// `POST /v1/users/join`: `{user_id, email, nick}`. A nickname with white space is `402`
    /// (the app strips spaces, and says so for this status); a taken email or nickname `409`.
    @Sendable func join(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: JoinBody.self)
        if let nick = body.nick, nick.unicodeScalars.contains(where: \.properties.isWhitespace) {
            throw LSLPError(402, .nicknameSpaces)
        }
        let user = try await services.register(
            email: body.email, password: body.password, nickname: body.nick, store: accounts, logger: context.logger)
        var writer = JSONWriter(capacity: 128)
        writer.object { writer in Self.writeAccount(user, to: &writer) }
        return writer.response()
    }

    /// `user_id`, `email` and `nick`: `JoinResponse`, and the start of `LoginResponse`.
    static func writeAccount(_ user: User, to writer: inout JSONWriter) {
        writer.key("user_id")
        writer.value(String(user.id))
        writer.key("email")
        writer.value(user.email)
        writer.key("nick")
        writer.value(user.nickname)
    }

    struct EmailBody: Decodable {
        var email: String?
    }

    /// `POST /v1/validation/email`: `{message}` when the address can be used, `409` when an
    /// account has it.
    @Sendable func validateEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: EmailBody.self)
        var validator = BodyValidator()
        let email = validator.required(body.email, "email")
        if let email { validator.check { AccountRules.checkEmail(email, into: &$0) } }
        try validator.validate()
        if try await accounts.accountExists(email: email, nickname: nil) != nil {
            throw LSLPError(409, .emailTaken)
        }
        var writer = JSONWriter(capacity: 64)
        writer.object { writer in
            writer.key("message")
            writer.value(Message(.emailAvailable).text(in: Language.of(request)))
        }
        return writer.response()
    }

    struct LoginBody: Decodable {
        var email: String?
        var password: String?
    }

    /// `POST /v1/users/login`: `{user_id, email, nick, accessToken, refreshToken}`, the same
    /// tokens as a native login, with the same throttling.
    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: LoginBody.self)
        let user = try await services.authenticate(
            email: body.email, password: body.password, store: accounts, client: context.clientKey,
            clientText: context.clientText, logger: context.logger)
        let tokens = try await services.startLogin(for: user, store: accounts)
        var writer = JSONWriter(capacity: 512)
        writer.object { writer in
            Self.writeAccount(user, to: &writer)
            writer.key("accessToken")
            writer.value(tokens.accessToken)
            writer.key("refreshToken")
            writer.value(tokens.refreshToken)
        }
        return writer.response()
    }

    static let refreshHeader = HTTPField.Name("Refresh")!

    /// `GET /v1/auth/refresh`: `{accessToken}` for the `Refresh` header's token, which stays
    /// usable (the app keeps the refresh token of its login and never stores another) until it
    /// expires or its login ends. Unknown, used, expired or revoked: `418`, and the app asks
    /// its user to log in again; no `Refresh` header at all is `400`. The expired access token
    /// the app sends along is not needed.
    @Sendable func refresh(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let token = request.headers[Self.refreshHeader], !token.isEmpty else {
            throw Problem.invalid("Refresh", "required", .fieldRequired)
        }
        guard token.utf8.count <= 1024,
            let userID = try await accounts.refreshTokenUser(RefreshTokens.hash(token), at: .now()),
            try await accounts.userExists(id: userID)
        else {
            throw LSLPError(418, .refreshTokenInvalid)
        }
        let access = try await services.accessTokens.issue(for: userID)
        var writer = JSONWriter(capacity: 256)
        writer.object { writer in
            writer.key("accessToken")
            writer.value(access)
        }
        return writer.response()
    }

    /// The user a path names, or `410`.
    private func user(_ text: String?) async throws -> User {
        guard let text, let id = Int64(text), id > 0, let user = try await accounts.user(id: id) else {
            throw LSLPError(410, .userNotFound, ["id": String((text ?? "").prefix(40))])
        }
        return user
    }

    /// `GET /v1/users/me/profile` and `/v1/users/{id}/profile`: the profile with its followers,
    /// followees and review post ids (each list whole up to `LSLPSettings.maximumEmbedded`).
    private func profile(of user: User, includesEmail: Bool, viewer: Int64) async throws -> Response {
        async let followers = social.follows(
            .followers, of: user.id, after: nil, limit: LSLPSettings.maximumEmbedded)
        async let following = social.follows(
            .following, of: user.id, after: nil, limit: LSLPSettings.maximumEmbedded)
        async let reviews = posts.reviewIDs(author: user.id, limit: LSLPSettings.maximumEmbedded, viewer: viewer)
        var writer = JSONWriter(capacity: 1024)
        LSLPViews.profile(
            &writer, user, includesEmail: includesEmail, followers: try await followers.items,
            following: try await following.items, posts: try await reviews)
        return writer.response()
    }

    /// `POST` / `DELETE /v1/follow/{id}`: `{nick, opponent_nick, following_status}`. Following
    /// someone already followed is `409` (as the app's backend did); unfollowing is idempotent.
    private func follow(_ active: Bool, _ context: AuthenticatedContext) async throws -> Response {
        let target = try await user(context.parameters.get("id"))
        if target.id == context.user.id { throw LSLPError(400, .cannotFollowYourself) }
        if active { try await blocks.requireNotBlocked(context.user.id, target.id) }
        try await writes.admit(.follow, user: context.user.id)
        if active, try await accounts.profileStats(of: target.id, viewer: context.user.id).isFollowing {
            throw LSLPError(409, .alreadyFollowing)
        }
        guard
            let state = try await social.setFollow(
                active, follower: context.user.id, followee: target.id, at: .now())
        else { throw LSLPError(410, .userNotFound, ["id": String(target.id)]) }
        var writer = JSONWriter(capacity: 128)
        writer.object { writer in
            writer.key("nick")
            writer.value(context.user.nickname)
            writer.key("opponent_nick")
            writer.value(target.nickname)
            writer.key("following_status")
            writer.value(state.following)
        }
        return writer.response()
    }
}
