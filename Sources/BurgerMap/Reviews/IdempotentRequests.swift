import BurgerMapCore
import Crypto
import Foundation
import HTTPTypes
import Synchronization

/// What the IETF `Idempotency-Key` draft asks of a server besides replaying: a key reused for
/// another request is refused (`422 idempotency_key_reused`), and a key whose first request is
/// still running is refused too (`409 conflict`, `Retry-After: 1`) rather than waiting or running
/// twice. A replay carries `Idempotent-Replayed: true`.
///
/// The running requests are known per instance (`IdempotentRequests`): a second request with the
/// same key on another instance waits for the first's transaction (PostgreSQL's claim row) and is
/// then replayed or refused by fingerprint, so it never runs twice either.
final class IdempotentRequests: Sendable {
    /// The header a replayed answer carries.
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    private let running = Mutex<Set<RunningKey>>([])

    private struct RunningKey: Hashable {
        let userID: Int64
        let key: String
    }

    /// Runs `body` as the one request of this key on this instance; `409` while another runs.
    func run<Result>(_ key: IdempotencyKey?, _ body: () async throws -> Result) async throws -> Result {
        guard let key else { return try await body() }
        let running = RunningKey(userID: key.userID, key: key.key)
        let claimed = self.running.withLock { $0.insert(running).inserted }
        guard claimed else {
            throw Problem(.conflict, .idempotencyKeyRunning, headers: [.retryAfter: "1"])
        }
        defer { _ = self.running.withLock { $0.remove(running) } }
        return try await body()
    }

    /// The fingerprint of a multipart request: its method, its path, its text fields (by name) and
    /// the SHA-256 of each file part's bytes, in order, hashed again (hex).
    static func fingerprint(method: String, path: String, fields: [(String, String?)], fileDigests: [String])
        -> String
    {
        var hasher = SHA256()
        func add(_ text: String) {
            // Length-prefixed, so that no two lists of texts hash alike by moving a boundary.
            hasher.update(data: Data("\(text.utf8.count):".utf8))
            hasher.update(data: Data(text.utf8))
        }
        add(method)
        add(path)
        for (name, value) in fields {
            add(name)
            add(value ?? "\u{0}absent")
        }
        for digest in fileDigests { add(digest) }
        return hex(hasher.finalize())
    }

    /// The SHA-256 of a file part's bytes (hex).
    static func digest(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// A digest's bytes as lower-case hex, by the project's one hex writer.
    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        for byte in digest { text.appendHex(UInt64(byte), digits: 2) }
        return String(decoding: text, as: UTF8.self)
    }
}
