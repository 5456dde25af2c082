import BurgerMapCore
import Hummingbird

/// Writes JSON straight into bytes.
///
/// Foundation's `JSONEncoder` on Linux took most of a nearby request's time (about 15 µs a place,
/// measured with `scripts/bench-http`); the API's hot lists are written with this instead. No
/// package on the mirror encodes JSON faster. Keys are written as given (snake_case).
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `{ … }`, with `body` writing the members.
    mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    /// Writes `[ … ]`, with `body` writing the elements.
    mutating func array(_ body: (inout JSONWriter) -> Void) {
        container(UInt8(ascii: "["), UInt8(ascii: "]"), body)
    }

    private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(open)
        needsComma = false
        body(&self)
        bytes.append(close)
        needsComma = true
    }

    /// Writes a member's key; the value follows.
    /// (Assembled on the stack and appended at once: a page of places writes hundreds of keys.)
    mutating func key(_ name: StaticString) {
        let comma = needsComma
        name.withUTF8Buffer { name in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count + 4) { buffer in
                var count = 0
                if comma {
                    buffer[0] = UInt8(ascii: ",")
                    count = 1
                }
                buffer[count] = UInt8(ascii: "\"")
                _ = UnsafeMutableBufferPointer(rebasing: buffer[(count + 1)...]).initialize(fromContentsOf: name)
                count += name.count + 1
                buffer[count] = UInt8(ascii: "\"")
                buffer[count + 1] = UInt8(ascii: ":")
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<(count + 2)]))
            }
        }
        needsComma = false
    }

    /// Writes a member's key that is not a constant (a language code of `names`), escaped.
    mutating func key(text: String) {
        value(text)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a JSON value the service made itself (`PlaceAttributes.json`) as it is; `null`
    /// for `nil`.
    mutating func value(json: String?) {
        guard let json else { return value(nil as String?) }
        separate()
        bytes.append(contentsOf: json.utf8)
        needsComma = true
    }

    /// A string, escaped; `null` for `nil`. Runs that need no escape are copied whole.
    mutating func value(_ text: String?) {
        separate()
        guard var text else { return appendNull() }
        bytes.append(UInt8(ascii: "\""))
        text.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            while index < utf8.count {
                // Eight bytes at a time while none needs an escape (nearly every text).
                if index + 8 <= utf8.count,
                    !Self.needsEscape(
                        UnsafeRawPointer(utf8.baseAddress!).loadUnaligned(fromByteOffset: index, as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let byte = utf8[index]
                index += 1
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<(index - 1)]))
                appendEscaped(byte)
                runStart = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any of eight bytes is a control character, a quote or a backslash: the classic
    /// "has a byte less than n" and "has a zero byte" word tests, exact as a yes or no.
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let hasControl = (word &- 0x20 &* ones) & ~word & highs != 0
        return hasControl || hasZeroByte(word ^ (0x22 &* ones)) || hasZeroByte(word ^ (0x5C &* ones))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(UInt8(ascii: "u"))
            bytes.appendHex(UInt64(byte), digits: 4)
        }
    }

    /// A moment as an RFC 3339 string, written without an intermediate `String`.
    mutating func value(_ time: Timestamp) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        time.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func value(_ number: Int64) {
        separate()
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.appendDecimal(number.magnitude)
    }

    /// A finite number rounded to `decimals` places (at most 6), trailing zeros dropped: `1234.5`.
    mutating func value(_ number: Double, decimals: Int) {
        var scale: UInt64 = 1
        for _ in 0..<min(decimals, 6) { scale *= 10 }
        let scaled = (number * Double(scale)).rounded()
        guard number.isFinite, abs(scaled) < 1e17 else { return value(number) }
        separate()
        if scaled < 0 { bytes.append(UInt8(ascii: "-")) }
        let units = UInt64(abs(scaled))
        bytes.appendDecimal(units / scale)
        var fraction = units % scale
        guard fraction > 0 else { return }
        var width = min(decimals, 6)
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        bytes.append(UInt8(ascii: "."))
        bytes.appendDecimal(fraction, minimumWidth: width)
    }

    mutating func value(_ number: Int) {
        value(Int64(number))
    }

    /// A finite number in its shortest round-tripping form; `null` for `nil`.
    mutating func value(_ number: Double?) {
        separate()
        guard let number, number.isFinite else { return appendNull() }
        var text = number.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func value(_ flag: Bool) {
        separate()
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
    }

    /// Makes the next value follow a comma: for a writer that continues a list whose earlier
    /// items were written (and sent) by another.
    mutating func continueAfterEarlierItems() {
        needsComma = true
    }

    private mutating func appendNull() {
        bytes.append(contentsOf: "null".utf8)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    /// The JSON as a `200` (or other status) response.
    func response(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var response = jsonResponse(bytes, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// A value the API writes with `JSONWriter`.
protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    /// The value as a JSON response.
    func response(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var writer = JSONWriter(capacity: 512)
        write(to: &writer)
        return writer.response(status: status, headers: headers)
    }

    /// The value as JSON bytes (for answers stored to be replayed).
    var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        write(to: &writer)
        return writer.bytes
    }
}

/// A JSON response from bytes written earlier.
func jsonResponse(_ bytes: [UInt8], status: HTTPResponse.Status) -> Response {
    Response(
        status: status, headers: [.contentType: "application/json; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
}
