import HummingbirdBcrypt
import NIOCore
import NIOPosix

/// Hashes and checks passwords with bcrypt on threads of its own.
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

    /// The bcrypt hash of `password`.
    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await pool.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; with no hash, checks against the decoy and fails.
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        let decoy = self.decoy
        return try await pool.runIfActive {
            guard let hash else {
                _ = Bcrypt.verify(password, hash: decoy)
                return false
            }
            return Bcrypt.verify(password, hash: hash)
        }
    }
}
