import BurgerMapCore
import Foundation
import NIOCore

/// Follows MultipartKit's `MultipartParser` byte by byte, to know when it is about to read a
/// byte of a part's header name (it refuses a byte of 0x80 or more there) and how many bytes
/// the preamble, a part's header block (from the CR LF after its delimiter to the blank line)
/// or the epilogue has taken (it refuses one more than
/// `maxHeaderBytes`, before the parser sees any of the buffer: the limit is exact, whatever
/// the sizes of the buffers the body arrives in).
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

    /// What `check` finds in a buffer.
    enum Verdict: Equatable {
        case admitted
        /// The parser would read a byte of 0x80 or more as part of a header name.
        case nonASCIIHeaderName
        /// The preamble, a part's header block or the epilogue is longer than `maxHeaderBytes`.
        case headerBytesOverLimit
    }

    /// CR LF "--" boundary, as the parser matches it.
    private let delimiter: [UInt8]
    private let maxHeaderBytes: Int
    private var state = State.preamble(matched: 0)
    /// Bytes of the current preamble, header block (from the end of its delimiter to the blank
    /// line) or epilogue.
    private var headerBytes = 0

    init(boundary: String, maxHeaderBytes: Int) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// Follows `buffer`'s bytes, which the parser reads next.
    mutating func check(_ buffer: ByteBuffer) -> Verdict {
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress else { return .admitted }
            var index = 0
            while index < bytes.count {
                switch state {
                case .malformed:
                    // The parser throws: nothing after this reaches a header name.
                    return .admitted
                case .epilogue:
                    // Ignored by the parser, and counted as a whole.
                    headerBytes += bytes.count - index
                    return headerBytes > maxHeaderBytes ? .headerBytesOverLimit : .admitted
                case .body:
                    // Body bytes stay body bytes up to a CR, where a delimiter may begin: skip to
                    // it with memchr instead of stepping through a photo byte by byte.
                    guard let found = memchr(base + index, Int32(delimiter[0]), bytes.count - index) else {
                        return .admitted
                    }
                    index = base.distance(to: UnsafeRawPointer(found))
                case .delimiter(let matched) where matched < delimiter.count:
                    break
                default:
                    // A header block starts at the CR after its delimiter.
                    headerBytes += 1
                    if headerBytes > maxHeaderBytes { return .headerBytesOverLimit }
                }
                let before = state
                guard admits(bytes[index]) else { return .nonASCIIHeaderName }
                switch (before, state) {
                case (_, .body), (.preamble, .delimiterLineEnd):
                    // The body or the first header block starts: the count starts again.
                    headerBytes = 0
                default:
                    break
                }
                index += 1
            }
            return .admitted
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
