import Foundation

/// What the account routes share: token signing, password hashing and login throttling.
public struct AccountServices: Sendable {
    public let accessTokens: AccessTokens
    /// How long a refresh token works after it is issued.
    public let refreshLifetime: Duration
    public let passwords: PasswordHasher
    public let throttle: LoginThrottle

    public init(
        accessTokens: AccessTokens, refreshLifetime: Duration = .seconds(30 * 24 * 3600),
        passwords: PasswordHasher = PasswordHasher(), throttle: LoginThrottle = LoginThrottle()
    ) {
        self.accessTokens = accessTokens
        self.refreshLifetime = refreshLifetime
        self.passwords = passwords
        self.throttle = throttle
    }

    /// A fresh access token and refresh token for `user`, starting a new login.
    func startLogin(for user: User, database: AppDatabase) async throws -> TokensView {
        let refresh = RefreshTokens.generate()
        try await database.startLogin(
            userID: user.id, tokenHash: RefreshTokens.hash(refresh), expiresAt: refreshExpiry())
        return try await tokens(for: user, refreshToken: refresh, database: database)
    }

    /// The `Tokens` object for `user` with a given refresh token.
    func tokens(for user: User, refreshToken: String, database: AppDatabase) async throws -> TokensView {
        TokensView(
            accessToken: try await accessTokens.issue(for: user.id), refreshToken: refreshToken,
            expiresIn: Int(accessTokens.lifetime.seconds),
            me: try await database.me(user))
    }

    func refreshExpiry(from time: Timestamp = .now()) -> Timestamp {
        Timestamp(milliseconds: time.milliseconds + Int64(refreshLifetime.seconds * 1000))
    }
}

/// `Tokens` in the contract.
struct TokensView: JSONWritable {
    var accessToken: String
    var refreshToken: String
    var expiresIn: Int
    var me: ProfileView

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("access_token")
            writer.value(accessToken)
            writer.key("refresh_token")
            writer.value(refreshToken)
            writer.key("token_type")
            writer.value("Bearer")
            writer.key("expires_in")
            writer.value(expiresIn)
            writer.key("user")
            me.write(to: &writer)
        }
    }
}
