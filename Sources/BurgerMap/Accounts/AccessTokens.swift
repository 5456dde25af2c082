import BurgerMapCore
import Crypto
import Foundation
import JWTKit
import Synchronization

/// The claims of an access token: who (`sub`, the user id), when issued (`iat`) and until when
/// (`exp`). Verification here checks only the signature; `AccessTokens.verify` checks the expiry
/// itself so that an expired token can be told apart from a forged one.
struct AccessTokenClaims: JWTPayload {
    var sub: SubjectClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Why an access token was refused.
enum AccessTokenFailure: Error, Equatable {
    /// Well signed but past its expiry: the client should refresh.
    case expired
    /// Not a token this service signed (or signed with another key, or `alg: none`), or malformed.
    case invalid
}

/// Signs and verifies access tokens: HS256 JWTs with a short life.
public struct AccessTokens: Sendable {
    private let keys: JWTKeyCollection
    /// How long a new token lives.
    public let lifetime: Duration
    /// The claims of tokens whose signature was checked already.
    private let verified = VerifiedTokens()

    /// Tokens signed with `key`.
    public init(key: SymmetricKey, lifetime: Duration) async {
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(key: key), digestAlgorithm: .sha256)
        self.lifetime = lifetime
    }

    /// The signing key: `BURGERMAP_JWT_SECRET` when it is set (at least 32 bytes, so that it cannot
    /// be guessed), else one derived from the data folder's secret, which survives restarts.
    public static func signingKey(environment: [String: String], secret: ServiceSecret) throws -> SymmetricKey {
        if let configured = environment["BURGERMAP_JWT_SECRET"] {
            guard configured.utf8.count >= 32 else { throw ConfigurationError.jwtSecretTooShort }
            return SymmetricKey(data: Data(configured.utf8))
        }
        return secret.derivedKey(purpose: "access-token-hs256")
    }

    /// A new token for `userID`.
    func issue(for userID: Int64, at time: Date = Timestamp.now().date) async throws -> String {
        // Whole seconds, as JWT numeric dates usually are.
        let time = Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down))
        let claims = AccessTokenClaims(
            sub: SubjectClaim(value: String(userID)), iat: IssuedAtClaim(value: time),
            exp: ExpirationClaim(value: time.addingTimeInterval(lifetime.seconds)))
        return try await keys.sign(claims)
    }

    /// The user id a token was issued for, if it is genuine and still valid.
    func verify(_ token: String, at time: Date = Timestamp.now().date) async -> Result<Int64, AccessTokenFailure> {
        guard let claims = await claims(of: token) else { return .failure(.invalid) }
        return claims.expiresAt > time ? .success(claims.userID) : .failure(.expired)
    }

    /// The user a genuine, unexpired token names and when it was issued (read-your-writes
    /// routing: a token issued within the window may belong to an account made just now).
    func subjectAndIssue(of token: String, at time: Date = Timestamp.now().date) async
        -> (userID: Int64, issuedAt: Timestamp)?
    {
        guard let claims = await claims(of: token), claims.expiresAt > time else { return nil }
        return (claims.userID, Timestamp(date: claims.issuedAt))
    }

    /// When a genuine token expires (a notification stream ends then); `nil` for any other text.
    func expiry(of token: String) async -> Date? {
        await claims(of: token)?.expiresAt
    }

    /// Whether each of a token's three segments is base64url as this service writes it: no
    /// padding, and the bits after the last byte zero. Another spelling of the same bytes (a
    /// trailing `=`, changed unused bits) decodes to the same signed token, so it is refused:
    /// one token has one text (the verified-tokens memory and every log line key on it).
    static func isCanonical(_ token: String) -> Bool {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { return false }
        return segments.allSatisfy { segment in
            guard let bytes = CursorCodec.bytes(base64URL: segment.utf8) else { return false }
            return CursorCodec.base64URL(bytes).utf8.elementsEqual(segment.utf8)
        }
    }

    /// The claims of a token this service signed, expired or not; `nil` for any other text.
    private func claims(of token: String) async -> VerifiedTokens.Claims? {
        guard token.utf8.count <= 4096 else { return nil }
        if let known = verified.claims(of: token) { return known }
        guard Self.isCanonical(token), Self.algorithm(of: token) == "HS256",
            let claims = try? await keys.verify(token, as: AccessTokenClaims.self),
            let userID = Int64(claims.sub.value), userID > 0
        else { return nil }
        let checked = VerifiedTokens.Claims(userID: userID, issuedAt: claims.iat.value, expiresAt: claims.exp.value)
        verified.remember(token, checked)
        return checked
    }
}

/// The claims of the tokens whose signature was checked lately, by their text: a client sends
/// the same token with every request until it expires, and checking it (the header's JSON, the
/// HMAC on the key collection's actor, the claims' JSON) cost about as much as a cheap route's
/// store call. The same bytes always check the same way, so a token found here is genuine; its
/// expiry is still compared with the time of each request. Tokens that fail are never kept.
/// At most `capacity` (10,000, about 3 MB), then it starts again from empty.
final class VerifiedTokens: Sendable {
    struct Claims: Sendable {
        var userID: Int64
        var issuedAt: Date
        var expiresAt: Date
    }

    let capacity: Int
    private let known = Mutex<[String: Claims]>([:])

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    func claims(of token: String) -> Claims? {
        known.withLock { $0[token] }
    }

    func remember(_ token: String, _ claims: Claims) {
        known.withLock { known in
            if known.count >= capacity { known.removeAll(keepingCapacity: true) }
            known[token] = claims
        }
    }
}

extension AccessTokens {
    /// The `alg` a token's header claims. Only HS256 is accepted: a header that names another
    /// algorithm (`none` above all) is refused before any signature check.
    static func algorithm(of token: String) -> String? {
        struct Header: Decodable { var alg: String }
        guard let encoded = token.split(separator: ".", omittingEmptySubsequences: false).first,
            let bytes = CursorCodec.bytes(base64URL: encoded.utf8)
        else { return nil }
        return try? JSONDecoder().decode(Header.self, from: Data(bytes)).alg
    }
}

/// A setting the service cannot start with.
public enum ConfigurationError: Error, CustomStringConvertible {
    case jwtSecretTooShort

    public var description: String {
        switch self {
        case .jwtSecretTooShort: "BURGERMAP_JWT_SECRET must be at least 32 bytes long"
        }
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Refresh tokens: 256 random bits, handed to the client once and stored only as a SHA-256
/// hash, so a copy of the database cannot be used to log in.
enum RefreshTokens {
    static func generate() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { CursorCodec.base64URL($0) }
    }

    /// The token that replaces `token` when it is used: HMAC-SHA256 of it under a key derived
    /// from the service secret for this purpose alone, in the same form as a random token.
    ///
    /// Deterministic, so that a client retrying a refresh whose answer it lost can be given the
    /// same successor again while only hashes are stored: the successor is recomputed from the
    /// token the client presents, never kept in clear. Without the key it is as unpredictable as
    /// a random token (HMAC is a PRF), and knowing a successor reveals nothing of the key or of
    /// other chains.
    static func successor(of token: String, key: SymmetricKey) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: key).withUnsafeBytes {
            CursorCodec.base64URL($0)
        }
    }

    static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }
}
