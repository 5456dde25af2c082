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
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    mutating func value(_ text: String?) {
        separate()
        guard let text else { return appendNull() }
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func value(_ number: Int64) {
        separate()
        bytes.append(contentsOf: number.description.utf8)
    }

    mutating func value(_ number: Int) {
        value(Int64(number))
    }

    /// A finite number in its shortest round-tripping form; `null` for `nil`.
    mutating func value(_ number: Double?) {
        separate()
        guard let number, number.isFinite else { return appendNull() }
        bytes.append(contentsOf: number.description.utf8)
    }

    mutating func value(_ flag: Bool) {
        separate()
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
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
