import Foundation

@testable import BurgerMap
@testable import BurgerMapCore

/// The pagination cursor codec.
///
/// Input: text, tried both as a cursor a client sent and as a position's cursor text.
///
/// Invariants: any text is either refused with `invalid_cursor` or decodes to a position whose
/// own cursor decodes to it again; a position that parses from text prints back to the same
/// position; its cursor decodes to it for the same list and is refused for any other list; and a
/// cursor with one character changed is refused or (where base64 leaves bits unused) still names
/// the same position, never another one.
enum CursorTarget {
    static let codec = CursorCodec(secret: ServiceSecret(bytes: Data((0..<32).map { UInt8($0) })))
    static let scopes = ["nearby|37.5|126.9|1000.0|false|0|", "places/1/reviews", ""]

    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        for scope in scopes {
            check(NearbyKey.self, text: text, scope: scope)
            check(TimeKey.self, text: text, scope: scope)
            check(Timestamp.self, text: text, scope: scope)
        }
    }

    static func check<Position: CursorPosition & Equatable>(_ type: Position.Type, text: String, scope: String) {
        if let position = decode(type, text, scope: scope) {
            require(decode(type, codec.encode(position, scope: scope), scope: scope) == position, "re-encoded cursor")
        }
        guard let position = Position(cursorText: text) else { return }
        require(Position(cursorText: position.cursorText) == position, "\(text) prints as \(position.cursorText)")
        let cursor = codec.encode(position, scope: scope)
        require(cursor.utf8.allSatisfy { $0 == 0x2E || $0 == 0x2D || $0 == 0x5F || isAlphanumeric($0) }, cursor)
        require(decode(type, cursor, scope: scope) == position, "cursor \(cursor) does not decode")
        require(decode(type, cursor, scope: scope + "x") == nil, "cursor accepted for another list")
        // One character changed, at a place and to a value the input picks.
        var bytes = Array(cursor.utf8)
        let index = text.utf8.count % bytes.count
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
        let replacement = alphabet[(Int(text.utf8.first ?? 0) + 1) % alphabet.count]
        guard bytes[index] != replacement else { return }
        bytes[index] = replacement
        if let edited = decode(type, String(decoding: bytes, as: UTF8.self), scope: scope) {
            require(edited == position, "an edited cursor names another position")
        }
    }

    /// The position, or `nil` when the codec answers `invalid_cursor` (anything else breaks).
    static func decode<Position: CursorPosition>(_ type: Position.Type, _ text: String, scope: String) -> Position? {
        do {
            return try codec.decode(type, from: text, scope: scope)
        } catch let problem as Problem {
            require(problem.code == .invalidCursor, "cursor refused with \(problem.code)")
            return nil
        } catch {
            require(false, "cursor refused with \(error)")
            return nil
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
