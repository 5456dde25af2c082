import Foundation

/// An OSM PBF file read pass by pass. Pass 1 opens every blob (nothing tells a node block from a
/// way block before that; a block of dense nodes alone is told by its first bytes) and notes
/// which kinds of objects each holds; the later passes read only the blobs that hold their kind,
/// skipping the rest by offset.
final class PBFSource: OSMSource {
    private let file: PBFFile
    private let decoder: PBFBlockDecoder
    private var buffer: [UInt8] = []
    /// Where each data blob is and what it holds: 24 bytes a blob, about 0.5 MB for a country
    /// extract of 20,000 blobs.
    private struct Blob {
        var offset: Int64
        var headerSize: Int32
        var dataSize: Int32
        var kinds: PBFBlockDecoder.Kinds
    }
    private var blobs: [Blob] = []
    private let dataStart: Int64
    private var pass = OSMPass.waysAndRelations
    private var offset: Int64
    private var nextBlob = 0
    private var passDone: Int64 = 0
    var bytesRead: Int64 { pass.number * file.size + passDone }
    var size: Int64 { file.size }

    /// The required features this reader understands; anything else (history files'
    /// `HistoricalInformation`, say) changes what the data means, so the file is refused.
    static let supportedFeatures: Set = ["OsmSchema-V0.6", "DenseNodes"]

    init(path: String, collector: OSMCollector) throws {
        file = try PBFFile(path: path)
        decoder = PBFBlockDecoder(collector: collector)
        guard let header = try file.frame(at: 0), header.type == "OSMHeader" else {
            throw ImportError.notADataset(path: path, reason: "an OSM PBF file starts with an OSMHeader blob")
        }
        let count = try file.contents(of: header, into: &buffer)
        var required: [String] = []
        do throws(PBFCorruption) {
            try buffer.withWireReader(count: count) { reader throws(PBFCorruption) in
                while let (number, wireType) = try reader.field() {
                    if number == 4 {
                        try WireReader.expect(wireType, 2, field: "HeaderBlock.required_features")
                        required.append(reader.string(try reader.lengthDelimited()))
                    } else {
                        try reader.skip(wireType)
                    }
                }
            }
        } catch {
            throw file.corrupt(0, error.what)
        }
        for feature in required where !Self.supportedFeatures.contains(feature) {
            let history = feature == "HistoricalInformation" ? " (a history file, not an extract)" : ""
            throw ImportError.unreadable(
                path: path,
                reason: "it requires the PBF feature \"\(feature)\"\(history), which this reader does not "
                    + "support (it reads OsmSchema-V0.6 and DenseNodes)")
        }
        dataStart = header.end
        offset = dataStart
    }

    func begin(_ pass: OSMPass) {
        self.pass = pass
        offset = dataStart
        nextBlob = 0
        passDone = dataStart
        decoder.cursor = OSMNodeTable.Cursor()
    }

    func advance() throws -> Bool {
        if pass == .waysAndRelations {
            guard let frame = try file.frame(at: offset) else {
                passDone = file.size
                return false
            }
            offset = frame.end
            if frame.type == "OSMData" {
                let rawSize = try file.load(frame)
                let kinds = try holdsOnlyDenseNodes(rawSize: rawSize) ? .nodes : try decode(frame, size: rawSize)
                blobs.append(
                    Blob(
                        offset: frame.offset, headerSize: Int32(frame.dataOffset - frame.offset),
                        dataSize: Int32(frame.dataSize), kinds: kinds))
            }
            passDone = frame.end
            return true
        }
        let wanted: PBFBlockDecoder.Kinds = pass == .nodes ? .nodes : .ways
        while nextBlob < blobs.count && !blobs[nextBlob].kinds.contains(wanted) { nextBlob += 1 }
        guard nextBlob < blobs.count else {
            passDone = file.size
            return false
        }
        let blob = blobs[nextBlob]
        nextBlob += 1
        let frame = PBFFrame(
            offset: blob.offset, type: "OSMData", dataOffset: blob.offset + Int64(blob.headerSize),
            dataSize: Int(blob.dataSize))
        _ = try decode(frame, size: try file.load(frame))
        passDone = frame.end
        return true
    }

    /// Inflates the rest of the open blob and decodes it for the pass.
    private func decode(_ frame: PBFFrame, size count: Int) throws -> PBFBlockDecoder.Kinds {
        try file.fill(count, into: &buffer)
        do throws(PBFCorruption) {
            return try buffer.withWireReader(count: count) { reader throws(PBFCorruption) in
                try decoder.decode(reader, pass: pass)
            }
        } catch {
            throw file.corrupt(frame.offset, error.what)
        }
    }

    /// Whether the open blob holds one group of dense nodes and nothing else, told from its first
    /// bytes: the string table's length, then the group's and its `dense` field's, which must
    /// both end where the block ends. Pass 1 has nothing to do with nodes, so for such a blob it
    /// inflates only the string table instead of the whole block (zlib was three quarters of the
    /// read's time): node blobs are 143 of the 189 MB that scripts/bench-osm's extract inflates
    /// to, their string tables 3 MB of those. Passes 1 and 2 went from 1.40 s to 0.42 s, the
    /// whole read from 2.3 s to 1.1 s. Any other layout is inflated and decoded.
    private func holdsOnlyDenseNodes(rawSize: Int) throws -> Bool {
        /// A length-delimited field at `start` of the first `available` bytes: its number, where
        /// its contents start and where it ends (`nil` when the bytes do not say).
        func field(at start: Int, _ available: Int) -> (number: UInt64, contents: Int, end: Int)? {
            try? buffer.withWireReader(count: available) { reader throws(PBFCorruption) in
                reader.position = start
                guard let (number, wireType) = try reader.field(), wireType == 2 else { return nil }
                let length = try reader.varint()
                return (number, reader.position, reader.position + Int(clamping: length))
            }
        }
        let head = min(rawSize, 16)
        try file.fill(head, into: &buffer)
        guard let table = field(at: 0, head), table.number == 1, table.end < rawSize else { return false }
        let available = min(rawSize, table.end + 24)
        try file.fill(available, into: &buffer)
        guard let group = field(at: table.end, available), group.number == 2, group.end == rawSize,
            let dense = field(at: group.contents, available), dense.number == 2, dense.end == group.end
        else { return false }
        return true
    }
}
