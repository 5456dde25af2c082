import BurgerMapCore
import Crypto
import Foundation

/// What the account routes share: token signing, password hashing and login throttling.
public struct AccountServices: Sendable {
    public let accessTokens: AccessTokens
    /// How long a refresh token works after it is issued.
    public let refreshLifetime: Duration
    public let passwords: PasswordHasher
    /// Login throttling on the engine's `LoginThrottleStore`. No default: a throttle on any
    /// other store would let the instances of the service count failures apart.
    public let throttle: LoginThrottle
    /// How long after a refresh token was used it may be presented again and answered with the
    /// same successor (`--refresh-grace`, 30 s), for clients that lost the first answer.
    public let refreshGrace: Duration
    /// Derives each refresh token's successor (`RefreshTokens.successor`).
    let successorKey: SymmetricKey
    /// Terms no nickname or bio may contain (`--blocked-words`).
    public var blockedWords = BlockedWords.none

    /// - Parameter successorKey: the key refresh-token successors are derived with; the service
    ///   derives it from its secret (`ServiceSecret.derivedKey`) so that retries keep working
    ///   across restarts. By default a random one, for tests.
    public init(
        accessTokens: AccessTokens, refreshLifetime: Duration = .seconds(30 * 24 * 3600),
        passwords: PasswordHasher = PasswordHasher(), throttle: LoginThrottle,
        refreshGrace: Duration = .seconds(30), successorKey: SymmetricKey = SymmetricKey(size: .bits256)
    ) {
        self.accessTokens = accessTokens
        self.refreshLifetime = refreshLifetime
        self.passwords = passwords
        self.throttle = throttle
        self.refreshGrace = refreshGrace
        self.successorKey = successorKey
    }

    /// The purpose name of `successorKey` under the service secret.
    public static let successorKeyPurpose = "refresh-token-successor"

    /// A fresh access token and refresh token for `user`, starting a new login.
    func startLogin(for user: User, store: any AccountStore, at time: Timestamp = .now()) async throws -> TokensView {
        let refresh = RefreshTokens.generate()
        try await store.startLogin(
            userID: user.id, tokenHash: RefreshTokens.hash(refresh), expiresAt: refreshExpiry(from: time), at: time)
        return try await tokens(for: user, refreshToken: refresh, store: store)
    }

    /// The `Tokens` object for `user` with a given refresh token.
    func tokens(for user: User, refreshToken: String, store: any AccountStore) async throws -> TokensView {
        TokensView(
            accessToken: try await accessTokens.issue(for: user.id), refreshToken: refreshToken,
            expiresIn: Int(accessTokens.lifetime.seconds),
            me: try await store.me(user))
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
