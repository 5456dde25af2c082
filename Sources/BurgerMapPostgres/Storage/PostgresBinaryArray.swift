import BurgerMapCore
import PostgresNIO

/// Reads a column in PostgreSQL's binary array format (one dimension, no NULL elements) for
/// the element types that the cell reads aggregate. Written here because postgres-nio decodes
/// `[Double]` and `[Int64]` through generic code that looks up type metadata for every
/// element: 1.3 ms of a city's 8 ms clustered view in a profile (`perf`, `scripts/bench-clusters
/// --engines`), where this loop reads the bytes in place.
enum PostgresBinaryArray {
    static func int64s(_ cell: PostgresCell) throws -> [Int64] {
        try elements(cell, type: .int8, width: 8) { Int64(bitPattern: $0) }
    }

    static func doubles(_ cell: PostgresCell) throws -> [Double] {
        try elements(cell, type: .float8, width: 8) { Double(bitPattern: $0) }
    }

    static func bools(_ cell: PostgresCell) throws -> [Bool] {
        try elements(cell, type: .bool, width: 1) { $0 != 0 }
    }

    /// The elements, each `width` bytes read big-endian into a `UInt64` and converted.
    private static func elements<Element>(
        _ cell: PostgresCell, type: PostgresDataType, width: Int, _ convert: (UInt64) -> Element
    ) throws -> [Element] {
        guard cell.format == .binary, var bytes = cell.bytes,
            let dimensions = bytes.readInteger(as: Int32.self), let flags = bytes.readInteger(as: Int32.self),
            let elementType = bytes.readInteger(as: UInt32.self)
        else { throw unexpected(cell) }
        // An empty array has no dimensions (and may name no element type).
        if dimensions == 0 { return [] }
        guard dimensions == 1, flags == 0, elementType == type.rawValue,
            let count = bytes.readInteger(as: Int32.self), count >= 0, bytes.readInteger(as: Int32.self) != nil,
            bytes.readableBytes == Int(count) * (4 + width)
        else { throw unexpected(cell) }
        return try bytes.withUnsafeReadableBytes { raw in
            try [Element](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
                var offset = 0
                for index in 0..<Int(count) {
                    var length: UInt32 = 0
                    for byte in 0..<4 { length = length << 8 | UInt32(raw[offset + byte]) }
                    guard length == width else { throw unexpected(cell) }
                    offset += 4
                    var value: UInt64 = 0
                    for byte in 0..<width { value = value << 8 | UInt64(raw[offset + byte]) }
                    offset += width
                    (buffer.baseAddress! + index).initialize(to: convert(value))
                    initialized = index + 1
                }
            }
        }
    }

    private static func unexpected(_ cell: PostgresCell) -> StorageError {
        .unexpectedAnswer("column \(cell.columnIndex) (\(cell.dataType)) as an array")
    }
}
