import BurgerMapCore
import Crypto
import Foundation

/// The service's master secret: signs pagination cursors and derives the token keys.
///
/// `BURGERMAP_SECRET` gives it from the environment: instances behind one load balancer share
/// it, so a cursor or token one issues is accepted by the others. Without it, it is kept in the
/// data folder with owner-only permissions and created on first start (the embedded default),
/// so that cursors stay valid across restarts without any configuration.
public struct ServiceSecret: Sendable {
    private let bytes: Data

    /// A secret from raw bytes (tests use random ones).
    public init(bytes: Data) {
        self.bytes = bytes
    }

    /// The environment variable that gives the secret.
    public static let environmentVariable = "BURGERMAP_SECRET"

    /// The secret `BURGERMAP_SECRET` gives (at least 32 bytes of text), or `nil` when it is unset.
    public static func fromEnvironment(_ environment: [String: String]) throws -> ServiceSecret? {
        guard let text = environment[environmentVariable] else { return nil }
        guard text.utf8.count >= 32 else { throw ServiceSecretError.tooShort }
        return ServiceSecret(bytes: Data(text.utf8))
    }

    /// A fresh random secret.
    public static func random() -> ServiceSecret {
        ServiceSecret(bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    /// Reads `secret.key` from `dataDirectory`, creating it (mode 0600) when it is missing.
    public static func loadOrCreate(in dataDirectory: URL) throws -> ServiceSecret {
        let file = dataDirectory.appendingPathComponent("secret.key")
        if let existing = try? Data(contentsOf: file), existing.count >= 32 {
            return ServiceSecret(bytes: existing)
        }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let secret = random()
        let temporary = file.appendingPathExtension("tmp-\(UUID().uuidString)")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: secret.bytes, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        // Link rather than rename: when two processes start at once, the first secret wins and the
        // other process reads it back.
        if link(temporary.path, file.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            return try loadOrCreate(in: dataDirectory)
        }
        try? FileManager.default.removeItem(at: temporary)
        return secret
    }

    /// A key for one purpose, so that no two uses of the secret can be confused.
    public func derivedKey(purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: bytes), info: Data(purpose.utf8), outputByteCount: 32)
    }
}

/// Why a configured secret is refused.
public enum ServiceSecretError: Error, CustomStringConvertible {
    case tooShort

    public var description: String {
        "BURGERMAP_SECRET must be at least 32 bytes (for example the output of `openssl rand -hex 32`)"
    }
}
