import Foundation
import NIOCore

/// Follows MultipartKit's `MultipartParser` byte by byte, only to know when it is about to read
/// a byte of a part's header name, and refuses a byte of 0x80 or more there.
///
/// MultipartKit 4.7.1 (the newest on the package mirror) checks header-name bytes against a
/// 128-entry table indexed by the byte (`isAllowedHeaderFieldNameCharacter`,
/// MultipartParser.swift:316), so such a byte traps: ten bytes of body (`--b\r\n\u{E0}` after a
/// `boundary=b` Content-Type) stopped the whole server. Found by the multipart fuzz target.
/// The parser's state is private, hence this copy of its transitions; every other malformed
/// byte is left to the parser, which throws on it, so the copy stops following at the first one.
struct MultipartHeaderGuard {
    private enum State {
        case preamble(matched: Int)
        /// Expecting the CR (`cr == true`) or the LF that ends a delimiter line.
        case delimiterLineEnd(cr: Bool)
        case headerName(empty: Bool)
        case headerValue(empty: Bool)
        case headerLineEnd
        case headersEnd
        case body
        case delimiter(matched: Int)
        case epilogue
        /// The parser throws at this byte or earlier: nothing after it reaches a header name.
        case malformed
    }

    /// CR LF "--" boundary, as the parser matches it.
    private let delimiter: [UInt8]
    private var state = State.preamble(matched: 0)

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Follows `buffer`'s bytes; `false` when the parser would read one of them as a header-name
    /// byte of 0x80 or more.
    mutating func admits(_ buffer: ByteBuffer) -> Bool {
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress else { return true }
            var index = 0
            while index < bytes.count {
                switch state {
                case .epilogue, .malformed:
                    // Nothing after this reaches a header name.
                    return true
                case .body:
                    // Body bytes stay body bytes up to a CR, where a delimiter may begin: skip to
                    // it with memchr instead of stepping through a photo byte by byte.
                    guard let found = memchr(base + index, Int32(delimiter[0]), bytes.count - index) else {
                        return true
                    }
                    index = base.distance(to: UnsafeRawPointer(found))
                default:
                    break
                }
                guard admits(bytes[index]) else { return false }
                index += 1
            }
            return true
        }
    }

    private mutating func admits(_ byte: UInt8) -> Bool {
        let cr: UInt8 = 0x0D
        let lf: UInt8 = 0x0A
        switch state {
        case .preamble(let matched):
            // The parser allows the body to start at "--", without the CR LF.
            var next = 0
            if matched == 0, byte == delimiter[2] {
                next = 3
            } else if byte == delimiter[matched] {
                next = matched + 1
            } else if matched > 0, byte == delimiter[0] {
                next = 1
            }
            state = next == delimiter.count ? .delimiterLineEnd(cr: true) : .preamble(matched: next)
        case .delimiterLineEnd(let expectingCR):
            if expectingCR, byte == cr {
                state = .delimiterLineEnd(cr: false)
            } else {
                state = !expectingCR && byte == lf ? .headerName(empty: true) : .malformed
            }
        case .headerName(let empty):
            if byte == 0x3A, !empty {
                state = .headerValue(empty: true)
            } else if byte == cr, empty {
                state = .headersEnd
            } else if byte >= 0x80 {
                return false
            } else {
                // Bytes the parser does not allow in a name make it throw; the rest extend the name.
                state = .headerName(empty: false)
            }
        case .headerValue(let empty):
            if byte == cr {
                state = .headerLineEnd
            } else if !(empty && (byte == 0x20 || byte == 0x09)) {
                state = .headerValue(empty: false)
            }
        case .headerLineEnd:
            state = byte == lf ? .headerName(empty: true) : .malformed
        case .headersEnd:
            state = byte == lf ? .body : .malformed
        case .body:
            if byte == delimiter[0] { state = .delimiter(matched: 1) }
        case .delimiter(let matched):
            if matched == delimiter.count {
                state = byte == cr ? .delimiterLineEnd(cr: false) : byte == 0x2D ? .epilogue : .malformed
            } else if byte == delimiter[matched] {
                state = .delimiter(matched: matched + 1)
            } else {
                state = byte == delimiter[0] ? .delimiter(matched: 1) : .body
            }
        case .epilogue, .malformed:
            break
        }
        return true
    }
}
