import BurgerMapCore
import Foundation
import Testing

/// The fixture written as XML and, through osmium-tool, as PBF in the encodings the reader must
/// handle, in a temporary folder removed with the value.
final class OSMTestFiles {
    enum Format: String, CaseIterable, CustomTestStringConvertible {
        case xml
        /// osmium's default: zlib blobs, dense nodes.
        case pbf
        /// Nodes as `Node` messages instead of `DenseNodes`.
        case pbfPlainNodes
        /// Raw (uncompressed) blobs.
        case pbfRaw

        var testDescription: String { rawValue }
        var osmiumFormat: String? {
            switch self {
            case .xml: nil
            case .pbf: "pbf"
            case .pbfPlainNodes: "pbf,pbf_dense_nodes=false"
            case .pbfRaw: "pbf,pbf_compression=none"
            }
        }
    }

    let folder: URL
    private(set) var paths: [Format: String] = [:]

    init(_ fixture: OSMFixture = .sample(), formats: [Format] = Format.allCases) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("osm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let xml = folder.appendingPathComponent("extract.osm").path
        try Data(fixture.xml.utf8).write(to: URL(fileURLWithPath: xml))
        paths[.xml] = xml
        for format in formats {
            guard let osmiumFormat = format.osmiumFormat else { continue }
            let pbf = folder.appendingPathComponent("\(format.rawValue).osm.pbf").path
            try Self.osmium(["cat", xml, "--output-format", osmiumFormat, "-o", pbf])
            paths[format] = pbf
        }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func path(_ format: Format) -> String { paths[format]! }

    /// A file of `bytes` in the folder.
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    struct OsmiumMissing: Error, CustomStringConvertible {
        var description: String {
            "osmium-tool is not installed: the OSM tests make their PBF files with it (scripts/setup installs it)"
        }
    }

    struct OsmiumFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs osmium with `arguments`; throws when it is missing or fails.
    static func osmium(_ arguments: [String]) throws {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/osmium" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { throw OsmiumMissing() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments + ["--overwrite", "--no-progress"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OsmiumFailed(
                description: "osmium \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
        }
    }
}

/// Everything a reader yields for `path` with `filter`, at most `limit` items.
func readOSM(_ path: String, _ filter: OSMPlaceFilter, limit: Int = 100_000) throws -> [OSMItem] {
    let reader = try OSMPlaceReader(path: path, filter: filter)
    var items: [OSMItem] = []
    while items.count < limit, let item = try reader.next() { items.append(item) }
    return items
}

extension OSMItem {
    var id: String {
        switch self {
        case .place(let place): place.id
        case .skip(let id, _): id
        }
    }
}

/// A minimal protobuf writer for hand-made PBF files (the cases osmium never writes).
struct ProtobufBytes {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func field(_ number: UInt64, varint value: UInt64) {
        varint(number << 3)
        varint(value)
    }

    mutating func field(_ number: UInt64, _ data: [UInt8]) {
        varint(number << 3 | 2)
        varint(UInt64(data.count))
        bytes += data
    }

    /// A frame: the 4-byte length, a BlobHeader of `type` (and `dataSize`, by default the blob's
    /// size) and the blob.
    static func frame(_ type: String, blob: [UInt8], dataSize: UInt64? = nil) -> [UInt8] {
        var header = ProtobufBytes()
        header.field(1, Array(type.utf8))
        header.field(3, varint: dataSize ?? UInt64(blob.count))
        let length = UInt32(header.bytes.count)
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
            + header.bytes + blob
    }

    /// A raw blob holding `contents`.
    static func rawBlob(_ contents: [UInt8]) -> [UInt8] {
        var blob = ProtobufBytes()
        blob.field(1, contents)
        return blob.bytes
    }

    /// An OSMHeader frame requiring `features`.
    static func header(_ features: [String] = ["OsmSchema-V0.6", "DenseNodes"]) -> [UInt8] {
        var block = ProtobufBytes()
        for feature in features { block.field(4, Array(feature.utf8)) }
        block.field(16, Array("BurgerMap tests".utf8))
        return frame("OSMHeader", blob: rawBlob(block.bytes))
    }
}
