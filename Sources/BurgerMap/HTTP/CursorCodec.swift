import Crypto
import Foundation

/// Makes and checks the opaque pagination cursors.
///
/// A cursor is the keyset position of the last item of a page, as text, followed by an HMAC that
/// also covers the list it belongs to (the route and its filters). A cursor edited by a client,
/// or taken from another list or another query, fails the check and is `400 invalid_cursor`.
public struct CursorCodec: Sendable {
    /// An HMAC already keyed: each signature starts from a copy, so that the key's pads are
    /// hashed once, not for every page.
    private let keyedMAC: HMAC<SHA256>

    /// A codec whose cursors are signed with a key derived from the service secret.
    public init(secret: ServiceSecret) {
        keyedMAC = HMAC<SHA256>(key: secret.derivedKey(purpose: "pagination-cursor"))
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
        var mac = keyedMAC
        mac.update(data: Array(scope.utf8) + [0])
        mac.update(data: payload)
        return Data(mac.finalize().prefix(16))
    }

    private static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Base64url without padding (RFC 4648 §5). Foundation has only the standard alphabet; its
    /// `replacingOccurrences` took a tenth of a nearby request, so the alphabet is swapped here.
    static func base64URL(_ data: Data) -> String {
        var bytes = Array(data.base64EncodedString().utf8)
        bytes.removeAll { $0 == UInt8(ascii: "=") }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func data(base64URL text: some StringProtocol) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                bytes.append(byte)
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - bytes.count % 4) % 4))
        return Data(base64Encoded: Data(bytes))
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
