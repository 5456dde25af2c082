import Foundation

/// Streams the features of a GeoJSON FeatureCollection one at a time, without holding the
/// document: a byte scanner finds the top-level `features` array and hands out each element's
/// bytes, which are then decoded on their own.
///
/// Written here because no package on the mirror parses JSON incrementally; Foundation's
/// decoders need the whole document in memory, and the importer's memory must stay flat.
package struct GeoJSONFeatureReader {
    private var source: ByteSource
    private let path: String
    private var chunk: [UInt8] = []
    private var position = 0
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var expectKey = false
    private var currentKey: [UInt8] = []
    private var lastKey: [UInt8] = []
    private var inFeatures = false
    private var sawFeatures = false
    private var sawDocument = false
    private var element: [UInt8] = []
    private var elementTooLarge = false
    private(set) var featureNumber = 0
    /// Features larger than this are reported as skipped instead of buffered.
    package static let maximumFeatureBytes = 4 << 20

    package init(source: ByteSource, path: String) {
        self.source = source
        self.path = path
    }

    package var bytesRead: Int64 { source.bytesRead }
    package var size: Int64? { source.size }

    /// One element of the features array: its 1-based number and bytes (or why it was dropped).
    package struct Element {
        var number: Int
        var bytes: [UInt8]
        var problem: String?
    }

    /// The next element of the `features` array, or `nil` at the end of the document.
    package mutating func next() throws -> Element? {
        while true {
            if position == chunk.count {
                guard let next = try source.nextChunk() else { return try finish() }
                chunk = next
                position = 0
                continue
            }
            let byte = chunk[position]
            position += 1
            if let element = try consume(byte) { return element }
        }
    }

    private mutating func finish() throws -> Element? {
        if inFeatures {
            inFeatures = false
            if !element.isEmpty {
                return take(problem: "the file ends inside this feature")
            }
        }
        guard sawDocument else { throw ImportError.notADataset(path: path, reason: "the file is empty") }
        guard sawFeatures else {
            throw ImportError.notADataset(
                path: path, reason: "no top-level \"features\" array (expected a FeatureCollection)")
        }
        return nil
    }

    private mutating func take(problem: String? = nil) -> Element {
        featureNumber += 1
        let result = Element(
            number: featureNumber, bytes: element,
            problem: problem ?? (elementTooLarge ? "feature larger than \(Self.maximumFeatureBytes) bytes" : nil))
        element.removeAll(keepingCapacity: true)
        elementTooLarge = false
        return result
    }

    private mutating func consume(_ byte: UInt8) throws -> Element? {
        let isSpace = byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        if !sawDocument {
            if isSpace || byte == 0xEF || byte == 0xBB || byte == 0xBF { return nil }
            guard byte == UInt8(ascii: "{") else {
                throw ImportError.notADataset(path: path, reason: "GeoJSON must start with a JSON object")
            }
            sawDocument = true
        }
        if inFeatures {
            // Inside the features array: collect each element's bytes.
            if !inString, depth == 2, byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") {
                let done = element.isEmpty ? nil : take()
                if byte == UInt8(ascii: "]") {
                    inFeatures = false
                    depth -= 1
                }
                return done
            }
            if depth == 2, !inString, isSpace { return nil }
            if element.count < Self.maximumFeatureBytes {
                element.append(byte)
            } else {
                elementTooLarge = true
            }
        }
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                if depth == 1, expectKey {
                    lastKey = currentKey
                    expectKey = false
                }
            } else if depth == 1, expectKey {
                currentKey.append(byte)
            }
            return nil
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
            if depth == 1, expectKey { currentKey.removeAll(keepingCapacity: true) }
        case UInt8(ascii: "{"):
            depth += 1
            if depth == 1 { expectKey = true }
        case UInt8(ascii: "["):
            depth += 1
            if depth == 2, !sawFeatures, lastKey == Array("features".utf8) {
                inFeatures = true
                sawFeatures = true
            }
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
        case UInt8(ascii: ","):
            if depth == 1 { expectKey = true }
        case UInt8(ascii: ":"):
            if depth == 1 { expectKey = false }
        default:
            break
        }
        return nil
    }
}
