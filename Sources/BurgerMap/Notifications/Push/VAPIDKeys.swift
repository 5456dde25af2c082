import Crypto
import Foundation

/// Why a VAPID key could not be read or an `Authorization` header not be made.
public enum VAPIDError: Error, Equatable, Sendable {
    /// The private key text is not base64url of a 32-byte P-256 scalar.
    case invalidPrivateKey
    /// The push endpoint has no http(s) scheme or no host.
    case invalidEndpoint
    /// The subject is neither a `mailto:` nor an `https:` URI (RFC 8292 §2.1; Apple refuses others).
    case invalidSubject
    /// The token lifetime is not positive or is over 24 hours (RFC 8292 §2).
    case invalidLifetime
}

/// The application server's VAPID key pair (RFC 8292): push services tie a subscription to its
/// public key (the browser got it as `applicationServerKey`), so the key must outlive restarts.
///
/// The private key is kept as base64url of the 32-byte scalar, the format the web-push
/// libraries (web-push for Node, pywebpush) print and take, so a key can move between them.
public struct VAPIDKeys: Sendable {
    /// The environment variable that, when set, holds the private key and wins over the file.
    public static let environmentVariable = "BURGERMAP_VAPID_PRIVATE_KEY"
    /// The file `load` keeps a generated key in, inside the data folder.
    public static let fileName = "vapid-private-key"

    /// The signing key.
    public let privateKey: P256.Signing.PrivateKey

    /// A key pair of `privateKey`.
    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// The key whose scalar is the base64url text `privateKeyBase64URL` (surrounding white
    /// space ignored, as the text usually comes from a file or an environment variable).
    public init(privateKeyBase64URL: String) throws {
        guard let scalar = Base64URL.decode(privateKeyBase64URL.trimmingCharacters(in: .whitespacesAndNewlines)),
            scalar.count == 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar)
        else { throw VAPIDError.invalidPrivateKey }
        self.init(privateKey: key)
    }

    /// The public key as the browser's `applicationServerKey` and the header's `k` take it:
    /// base64url, unpadded, of the 65-byte uncompressed point.
    public var publicKeyBase64URL: String {
        Base64URL.encode(privateKey.publicKey.x963Representation)
    }

    /// The private key as base64url of the 32-byte scalar.
    public var privateKeyBase64URL: String {
        Base64URL.encode(privateKey.rawRepresentation)
    }

    /// The server's key: the `BURGERMAP_VAPID_PRIVATE_KEY` variable of `environment` when it is
    /// set and not empty; else the key in `folder/vapid-private-key`, generated and written there
    /// (mode 0600) on first start; with no folder, a fresh key that lives as long as the process
    /// (subscriptions made against it stop working at the next start).
    ///
    /// A file that exists but does not hold a key throws rather than being replaced: the
    /// subscriptions made against the old key would all be lost.
    public static func load(environment: [String: String], folder: URL?) throws -> VAPIDKeys {
        if let text = environment[environmentVariable], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            return try VAPIDKeys(privateKeyBase64URL: text)
        }
        guard let folder else { return VAPIDKeys(privateKey: .init()) }
        let file = folder.appendingPathComponent(fileName)
        if FileManager.default.fileExists(atPath: file.path) {
            return try read(file)
        }
        let keys = VAPIDKeys(privateKey: .init())
        return try keys.writeNew(to: file) ? keys : read(file)
    }

    /// The key in `file`; throws when it cannot be read or holds no key.
    private static func read(_ file: URL) throws -> VAPIDKeys {
        try VAPIDKeys(privateKeyBase64URL: String(decoding: try Data(contentsOf: file), as: UTF8.self))
    }

    /// Writes the private key to `file` unless a file is there already, and says whether it did.
    /// The text goes to a temporary file in the same folder that is made 0600 before the key is
    /// written into it (so the key is never readable by others), then is renamed into place, so
    /// a crash never leaves half a key. When another process got there first, its key is kept.
    private func writeNew(to file: URL) throws -> Bool {
        let manager = FileManager.default
        let folder = file.deletingLastPathComponent()
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(Self.fileName).\(UUID().uuidString).tmp")
        guard manager.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]) }
        defer { try? manager.removeItem(at: temporary) }
        // Again, explicitly: creation modes go through the umask, chmod does not.
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: Data((privateKeyBase64URL + "\n").utf8))
        try handle.synchronize()
        try handle.close()
        do {
            try manager.moveItem(at: temporary, to: file)
        } catch {
            // Another process wrote its key first: keep that one.
            guard manager.fileExists(atPath: file.path) else { throw error }
            return false
        }
        return true
    }

    /// The `Authorization` header value for a push to `endpoint` (RFC 8292 §3):
    /// `vapid t=<JWT>, k=<publicKeyBase64URL>`, the JWT's audience being the endpoint's origin,
    /// its expiry `now + lifetime` in whole seconds (at most 24 hours), its subject `subject`
    /// (the operator's `mailto:` or `https:` contact).
    ///
    /// The ES256 JWT is written here by hand: it is three base64url segments and a P-256
    /// signature in raw r‖s form, which swift-crypto gives directly. jwt-kit would do as well,
    /// but would need the key converted to its own type for these twenty lines.
    public func authorization(
        endpoint: URL, subject: String, now: Date, lifetime: TimeInterval = 12 * 3600
    ) throws -> String {
        guard lifetime > 0, lifetime <= 24 * 3600 else { throw VAPIDError.invalidLifetime }
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else { throw VAPIDError.invalidSubject }
        let claims = Claims(
            aud: try Self.audience(of: endpoint), exp: Int((now.timeIntervalSince1970 + lifetime).rounded(.down)),
            sub: subject)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = Base64URL.encode(#"{"typ":"JWT","alg":"ES256"}"#.utf8)
        let signingInput = header + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return "vapid t=\(signingInput).\(Base64URL.encode(signature.rawRepresentation)), k=\(publicKeyBase64URL)"
    }

    /// The JWT claims; encoded with sorted keys, so `aud`, `exp`, `sub`.
    private struct Claims: Encodable {
        let aud: String
        let exp: Int
        let sub: String
    }

    /// The origin of `endpoint`: `scheme://host`, with `:port` only when it is not the scheme's
    /// default, as push services compare it with their own origin.
    static func audience(of endpoint: URL) throws -> String {
        guard let components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            var host = components.host?.lowercased(), !host.isEmpty
        else { throw VAPIDError.invalidEndpoint }
        // An IPv6 literal needs its brackets back in an origin.
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let defaultPort = scheme == "https" ? 443 : 80
        guard let port = components.port, port != defaultPort else { return "\(scheme)://\(host)" }
        return "\(scheme)://\(host):\(port)"
    }
}
