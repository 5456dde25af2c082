import Foundation

/// A PBF file's bytes break a rule of the format; `what` says which, without the file's name
/// (the reader adds it and where the blob starts).
struct PBFCorruption: Error {
    var what: String
}

/// A cursor over protobuf wire format (varints, length-delimited fields) in memory the caller
/// keeps alive, with every read checked against the end: a hostile file gets a `PBFCorruption`,
/// never a read past the buffer.
///
/// Hand-written rather than swift-protobuf's generated messages (measured on this project's
/// 2-core machine, release builds, one 120 KB block of 8,000 dense nodes with version and
/// timestamp from scripts/bench-osm's extract): swift-protobuf 1.39 parsed it and walked the
/// columns in 0.30 ms, since it builds every array of the message and a `Data` per string-table
/// entry; this reader doing the same work took 0.061 ms, and 0.012 ms for what the node pass does
/// in a block where no node matters (ids and keys_vals only). Generated code would also need
/// `protoc` and the plugin built from source, for two small messages.
struct WireReader {
    let base: UnsafePointer<UInt8>
    var position: Int
    let end: Int

    init(_ buffer: UnsafeRawBufferPointer) {
        base = buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? Self.empty
        position = 0
        end = buffer.baseAddress == nil ? 0 : buffer.count
    }

    private init(base: UnsafePointer<UInt8>, position: Int, end: Int) {
        self.base = base
        self.position = position
        self.end = end
    }

    nonisolated(unsafe) private static let empty: UnsafePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()

    var atEnd: Bool { position >= end }
    var remaining: Int { end - position }

    /// The bytes from `range` (positions of this reader's buffer) as a reader of their own.
    func reader(_ range: Range<Int>) -> WireReader {
        WireReader(base: base, position: range.lowerBound, end: range.upperBound)
    }

    @inline(__always)
    mutating func varint() throws(PBFCorruption) -> UInt64 {
        if position < end {
            let byte = base[position]
            if byte < 0x80 {
                position += 1
                return UInt64(byte)
            }
        }
        return try longVarint()
    }

    private mutating func longVarint() throws(PBFCorruption) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw PBFCorruption(what: "a number runs past the end of its message") }
            let byte = base[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
            guard shift < 64 else { throw PBFCorruption(what: "a number is longer than 10 bytes") }
        }
    }

    /// A `sint64` (zigzag) varint.
    @inline(__always)
    mutating func signed() throws(PBFCorruption) -> Int64 {
        let value = try varint()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    /// An `int32`/`int64` varint (two's complement, negative values take 10 bytes).
    @inline(__always)
    mutating func int64() throws(PBFCorruption) -> Int64 {
        Int64(bitPattern: try varint())
    }

    /// The next field's number and wire type, or `nil` at the end of the message.
    @inline(__always)
    mutating func field() throws(PBFCorruption) -> (number: UInt64, wireType: UInt64)? {
        guard position < end else { return nil }
        let key = try varint()
        return (key >> 3, key & 7)
    }

    /// A length-delimited field's bytes (positions in this reader's buffer), checked to fit.
    @inline(__always)
    mutating func lengthDelimited() throws(PBFCorruption) -> Range<Int> {
        let length = try varint()
        guard length <= UInt64(end - position) else {
            throw PBFCorruption(what: "a field of \(length) bytes runs past the end of its message")
        }
        let start = position
        position += Int(length)
        return start..<position
    }

    /// Skips a field of `wireType` (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
    mutating func skip(_ wireType: UInt64) throws(PBFCorruption) {
        switch wireType {
        case 0: _ = try varint()
        case 1: try advance(8)
        case 2: _ = try lengthDelimited()
        case 5: try advance(4)
        default: throw PBFCorruption(what: "unknown protobuf wire type \(wireType)")
        }
    }

    private mutating func advance(_ count: Int) throws(PBFCorruption) {
        guard count <= end - position else { throw PBFCorruption(what: "a field runs past the end of its message") }
        position += count
    }

    /// Throws unless a field of `number` has the wire type the format gives it.
    @inline(__always)
    static func expect(_ wireType: UInt64, _ expected: UInt64, field: String) throws(PBFCorruption) {
        guard wireType == expected else {
            throw PBFCorruption(what: "\(field) has protobuf wire type \(wireType) instead of \(expected)")
        }
    }

    /// Whether the bytes in `range` are exactly `text`'s UTF-8.
    func bytes(_ range: Range<Int>, equal text: [UInt8]) -> Bool {
        guard range.count == text.count else { return false }
        guard !text.isEmpty else { return true }
        return text.withUnsafeBufferPointer { memcmp(base + range.lowerBound, $0.baseAddress!, text.count) == 0 }
    }

    /// The bytes in `range` as text (invalid UTF-8 repaired, never trusted).
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count), as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Runs `body` on a `WireReader` over the first `count` bytes (`withUnsafeBytes` does not
    /// pass typed errors through).
    func withWireReader<Result>(
        count: Int, _ body: (inout WireReader) throws(PBFCorruption) -> Result
    ) throws(PBFCorruption) -> Result {
        let result: Swift.Result<Result, PBFCorruption> = withUnsafeBytes { bytes in
            var reader = WireReader(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            do throws(PBFCorruption) {
                return .success(try body(&reader))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
