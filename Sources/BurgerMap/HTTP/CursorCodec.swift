import BurgerMapCore
import ExtrasBase64
import Foundation

/// Makes and checks the opaque pagination cursors.
///
/// A cursor is the keyset position of the last item of a page, as text, followed by an HMAC that
/// also covers the list it belongs to (the route and its filters). A cursor edited by a client,
/// or taken from another list or another query, fails the check and is `400 invalid_cursor`.
public struct CursorCodec: Sendable {
    /// An HMAC already keyed: each signature starts from copies of its keyed states, so that
    /// the key's pads are hashed once, not for every page.
    private let keyedMAC: KeyedSHA256MAC

    /// A codec whose cursors are signed with a key derived from the service secret.
    public init(secret: ServiceSecret) {
        keyedMAC = KeyedSHA256MAC(key: secret.derivedKey(purpose: "pagination-cursor"))
    }

    /// Encodes a position of the list named by `scope`.
    public func encode(_ position: some CursorPosition, scope: String) -> String {
        let payload = Array(position.cursorText.utf8)
        return Self.base64URL(payload) + "." + Self.base64URL(signature(payload, scope: scope))
    }

    /// Decodes a cursor made by `encode` for the same `scope`, or throws `invalid_cursor`.
    public func decode<Position: CursorPosition>(_ type: Position.Type, from text: String, scope: String) throws
        -> Position
    {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard text.utf8.count <= 1024, parts.count == 2,
            let payload = Self.bytes(base64URL: parts[0]), let mac = Self.bytes(base64URL: parts[1]),
            mac.count == 16,
            Self.constantTimeEqual(mac, signature(payload, scope: scope)),
            let position = Position(cursorText: String(decoding: payload, as: UTF8.self))
        else {
            throw Problem(.invalidCursor, .cursorNotIssued)
        }
        return position
    }

    /// The first 16 bytes of HMAC-SHA256(scope, 0, payload).
    ///
    /// The three parts are joined and hashed at once: three `update`s of swift-crypto's `HMAC`
    /// (each generic over `DataProtocol`, the first one copying the keyed state) were about 1% of
    /// a nearby request's CPU in a `perf` profile (2026-11-27).
    private func signature(_ payload: [UInt8], scope: String) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(scope.utf8.count + 1 + payload.count)
        message.append(contentsOf: scope.utf8)
        message.append(0)
        message.append(contentsOf: payload)
        return keyedMAC.code(message).withUnsafeBytes { Array($0.prefix(16)) }
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Base64url without padding (RFC 4648 §5), the only form cursors (and tokens) take.
    static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// The bytes of unpadded base64url text; `nil` for anything else.
    static func bytes(base64URL text: some Collection<UInt8>) -> [UInt8]? {
        try? Base64.decode(bytes: text, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}

extension NearbyKey: CursorPosition {
    public var cursorText: String { "\(distanceM)|\(id)" }

    public init?(cursorText: String) {
        let parts = cursorText.split(separator: "|")
        guard parts.count == 2, let distance = Double(parts[0]), distance.isFinite, let id = Int64(parts[1]) else {
            return nil
        }
        self.init(distanceM: distance, id: id)
    }
}

extension ViewportKey: CursorPosition {
    public var cursorText: String { "\(reviewCount)|\(id)" }

    public init?(cursorText: String) {
        let parts = cursorText.split(separator: "|")
        guard parts.count == 2, let count = Int(parts[0]), count >= 0, let id = Int64(parts[1]) else { return nil }
        self.init(reviewCount: count, id: id)
    }
}

extension SearchKey: CursorPosition {
    public var cursorText: String { "\(rank)|\(order)|\(id)" }

    public init?(cursorText: String) {
        let parts = cursorText.split(separator: "|")
        guard parts.count == 3, let rank = Int(parts[0]), (0...3).contains(rank), let order = Double(parts[1]),
            order.isFinite, let id = Int64(parts[2])
        else { return nil }
        self.init(rank: rank, order: order, id: id)
    }
}

extension Timestamp: CursorPosition {
    public var cursorText: String { String(milliseconds) }

    public init?(cursorText: String) {
        guard let milliseconds = Int64(cursorText) else { return nil }
        self.init(milliseconds: milliseconds)
    }
}
