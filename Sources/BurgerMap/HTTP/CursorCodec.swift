import Crypto
import Foundation

/// Makes and checks the opaque pagination cursors.
///
/// A cursor is the keyset position of the last item of a page, as text, followed by an HMAC that
/// also covers the list it belongs to (the route and its filters). A cursor edited by a client,
/// or taken from another list or another query, fails the check and is `400 invalid_cursor`.
public struct CursorCodec: Sendable {
    private let key: SymmetricKey

    /// A codec whose cursors are signed with a key derived from the service secret.
    public init(secret: ServiceSecret) {
        key = secret.derivedKey(purpose: "pagination-cursor")
    }

    /// Encodes a position of the list named by `scope`.
    public func encode(_ position: some CursorPosition, scope: String) -> String {
        let payload = Data(position.cursorText.utf8)
        return Self.base64URL(payload) + "." + Self.base64URL(signature(payload, scope: scope))
    }

    /// Decodes a cursor made by `encode` for the same `scope`, or throws `invalid_cursor`.
    public func decode<Position: CursorPosition>(_ type: Position.Type, from text: String, scope: String) throws
        -> Position
    {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 1024, parts.count == 2,
            let payload = Self.data(base64URL: parts[0]), let mac = Self.data(base64URL: parts[1]),
            mac.count == 16,
            Self.constantTimeEqual(mac, signature(payload, scope: scope)),
            let position = Position(cursorText: String(decoding: payload, as: UTF8.self))
        else {
            throw Problem(.invalidCursor, .cursorNotIssued)
        }
        return position
    }

    private func signature(_ payload: Data, scope: String) -> Data {
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Data(scope.utf8))
        mac.update(data: [0])
        mac.update(data: payload)
        return Data(mac.finalize().prefix(16))
    }

    private static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: some StringProtocol) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// A keyset position that a cursor carries, as compact text (cursors are made for every page).
public protocol CursorPosition {
    var cursorText: String { get }
    init?(cursorText: String)
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

extension Timestamp: CursorPosition {
    public var cursorText: String { String(milliseconds) }

    public init?(cursorText: String) {
        guard let milliseconds = Int64(cursorText) else { return nil }
        self.init(milliseconds: milliseconds)
    }
}
