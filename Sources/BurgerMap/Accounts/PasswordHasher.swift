import BurgerMapCore
import Crypto
import Foundation
import HummingbirdBcrypt
import NIOCore
import NIOPosix

/// Hashes and checks passwords with bcrypt on threads of its own.
///
/// bcrypt reads at most 72 bytes, and the contract allows 128 characters (up to 512 bytes of
/// UTF-8): two passwords that differ only after byte 72 were one password. So a password is
/// first reduced to HMAC-SHA-256 under a fixed key, written in base64 (44 ASCII bytes, no NUL),
/// and bcrypt hashes that (`$bm2$` before the bcrypt hash says so). The key is the same for every
/// installation on purpose: it is not a pepper, its one job is to make every byte count; a key
/// from the service secret would lock every account out the day the secret is lost or changed.
/// Hashes stored before (plain bcrypt, `$2b$…`) are still accepted, and a login with one stores
/// the new form (`AccountStore.replacePasswordHash`).
///
/// A bcrypt at cost 10 is about 60 ms of CPU. Run on the server's event loops or on Swift's
/// cooperative pool (two threads on a two-core machine) a handful of logins would stall every
/// other request, so hashing gets a thread pool that leaves one core free for everything else.
public final class PasswordHasher: Sendable {
    /// bcrypt's work factor (the contract asks for at least 10).
    public let cost: UInt8
    private let pool: NIOThreadPool
    /// A hash of a random password, checked when a login names no account, so that such a
    /// login takes as long as a wrong password and does not reveal whether the email exists.
    private let decoy: String

    public init(cost: UInt8 = 10, threads: Int = max(1, System.coreCount - 1)) {
        precondition(cost >= 10, "bcrypt cost below 10")
        self.cost = cost
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        decoy = Bcrypt.hash(RefreshTokens.generate(), cost: cost)
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// What stands before the bcrypt hash of a pre-hashed password.
    static let prehashedPrefix = "$bm2$"
    private static let prehashKey = SymmetricKey(data: Data("burgermap password pre-hash v2".utf8))

    /// The text bcrypt hashes for `password`: its HMAC-SHA-256 in base64.
    static func prehashed(_ password: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data(password.utf8), using: prehashKey)).base64EncodedString()
    }

    /// Whether a stored hash is of the older form (plain bcrypt), to be replaced at the next login.
    static func needsUpgrade(_ hash: String) -> Bool { !hash.hasPrefix(prehashedPrefix) }

    /// The stored hash of `password` (`$bm2$` and the bcrypt hash of its pre-hash).
    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await pool.runIfActive { Self.prehashedPrefix + Bcrypt.hash(Self.prehashed(password), cost: cost) }
    }

    /// Whether `password` matches `hash` (either form); with no hash, checks against the decoy
    /// and fails.
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        let decoy = self.decoy
        return try await pool.runIfActive {
            guard let hash else {
                _ = Bcrypt.verify(Self.prehashed(password), hash: decoy)
                return false
            }
            if hash.hasPrefix(Self.prehashedPrefix) {
                return Bcrypt.verify(Self.prehashed(password), hash: String(hash.dropFirst(Self.prehashedPrefix.count)))
            }
            return Bcrypt.verify(password, hash: hash)
        }
    }
}
