import Foundation

/// An OSM PBF file read pass by pass. Pass 1 decompresses every blob (nothing tells a node block
/// from a way block before that) and notes which kinds of objects each holds; the later passes
/// read only the blobs that hold their kind, skipping the rest by offset.
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
                let kinds = try decode(frame)
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
        _ = try decode(frame)
        passDone = frame.end
        return true
    }

    private func decode(_ frame: PBFFrame) throws -> PBFBlockDecoder.Kinds {
        let count = try file.contents(of: frame, into: &buffer)
        do throws(PBFCorruption) {
            return try buffer.withWireReader(count: count) { reader throws(PBFCorruption) in
                try decoder.decode(reader, pass: pass)
            }
        } catch {
            throw file.corrupt(frame.offset, error.what)
        }
    }
}
