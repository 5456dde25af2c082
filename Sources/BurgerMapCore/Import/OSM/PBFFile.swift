import CZlib
import Foundation

/// One framed blob of a PBF file: a 4-byte big-endian length, a `BlobHeader` of that length, and
/// a `Blob` of the header's `datasize`.
struct PBFFrame {
    /// Where the frame starts (its length prefix), for messages.
    var offset: Int64
    /// `OSMHeader`, `OSMData`, or a type the reader skips.
    var type: String
    var dataOffset: Int64
    var dataSize: Int
    var end: Int64 { dataOffset + Int64(dataSize) }
}

/// The blob layer of a PBF file (fileformat.proto): framing, the format's size limits, and zlib.
/// Every length comes from the file, so each is checked against the spec's limits and the
/// file's size before anything is allocated or read.
final class PBFFile {
    /// The format's limits: a `BlobHeader` over 64 KiB or a blob (compressed or not) over 32 MiB
    /// is refused, so a hostile length never becomes an allocation.
    static let maximumHeaderSize = 64 << 10
    static let maximumBlobSize = 32 << 20

    let path: String
    let size: Int64
    private let descriptor: Int32
    private var compressed: [UInt8] = []
    /// zlib keeps a pointer back to its stream, so the stream lives at a fixed address; one
    /// stream is reset for every blob instead of set up again.
    private let stream: UnsafeMutablePointer<z_stream>

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw ImportError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw ImportError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        size = Int64(status.st_size)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            close(descriptor)
            throw ImportError.unreadable(path: path, reason: "zlib could not start")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        close(descriptor)
    }

    /// The error for a problem in the frame that starts at `offset`.
    func corrupt(_ offset: Int64, _ what: String) -> ImportError {
        .unreadable(path: path, reason: "corrupt PBF blob at byte \(offset): \(what)")
    }

    /// Reads exactly `count` bytes at `offset` into `buffer`, or throws that the file is truncated.
    private func read(_ count: Int, at offset: Int64, into buffer: inout [UInt8], frame: Int64) throws {
        if buffer.count < count { buffer = [UInt8](repeating: 0, count: count) }
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw ImportError.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if got == 0 {
                throw corrupt(frame, "truncated: the file ends \(count - done) bytes before the blob does")
            }
            done += got
        }
    }

    /// The frame that starts at `offset`, or `nil` at the end of the file.
    func frame(at offset: Int64) throws -> PBFFrame? {
        guard offset < size else { return nil }
        var prefix = [UInt8](repeating: 0, count: 4)
        try read(4, at: offset, into: &prefix, frame: offset)
        let headerSize = prefix.reduce(0) { $0 << 8 | Int($1) }
        guard headerSize <= Self.maximumHeaderSize else {
            throw corrupt(offset, "a BlobHeader of \(headerSize) bytes, over the format's 64 KiB limit")
        }
        var header: [UInt8] = []
        try read(headerSize, at: offset + 4, into: &header, frame: offset)
        var type: String?
        var dataSize: Int64?
        do throws(PBFCorruption) {
            try header.withWireReader(count: headerSize) { reader throws(PBFCorruption) in
                while let (number, wireType) = try reader.field() {
                    switch number {
                    case 1:
                        try WireReader.expect(wireType, 2, field: "BlobHeader.type")
                        type = reader.string(try reader.lengthDelimited())
                    case 3:
                        try WireReader.expect(wireType, 0, field: "BlobHeader.datasize")
                        dataSize = try reader.int64()
                    default: try reader.skip(wireType)
                    }
                }
            }
        } catch {
            throw corrupt(offset, error.what)
        }
        guard let type, let dataSize else { throw corrupt(offset, "a BlobHeader without type or datasize") }
        guard (0...Int64(Self.maximumBlobSize)).contains(dataSize) else {
            throw corrupt(offset, "a blob of \(dataSize) bytes, over the format's 32 MiB limit")
        }
        let dataOffset = offset + 4 + Int64(headerSize)
        guard dataOffset + dataSize <= size else {
            throw corrupt(
                offset, "truncated: the blob needs \(dataSize) bytes but the file has \(size - dataOffset) left")
        }
        return PBFFrame(offset: offset, type: type, dataOffset: dataOffset, dataSize: Int(dataSize))
    }

    /// The blob `load` read: where its data is in `compressed`, whether it is zlib, its size
    /// uncompressed, and how much of that `fill` has produced so far.
    private var current: (frame: Int64, data: Range<Int>, zlib: Bool, rawSize: Int, produced: Int)?

    /// The blob's uncompressed contents, written to the start of `output` (grown when needed,
    /// never shrunk, so one buffer serves every block); returns their length.
    func contents(of frame: PBFFrame, into output: inout [UInt8]) throws -> Int {
        let size = try load(frame)
        try fill(size, into: &output)
        return size
    }

    /// Reads the blob of `frame` and checks its envelope; returns its uncompressed size. `fill`
    /// then produces the contents, at once or a first part first.
    func load(_ frame: PBFFrame) throws -> Int {
        current = nil
        try read(frame.dataSize, at: frame.dataOffset, into: &compressed, frame: frame.offset)
        var data: Range<Int>?
        var encoding = ""
        var rawSize: Int64?
        do throws(PBFCorruption) {
            try compressed.withWireReader(count: frame.dataSize) { reader throws(PBFCorruption) in
                while let (number, wireType) = try reader.field() {
                    switch number {
                    case 2:
                        try WireReader.expect(wireType, 0, field: "Blob.raw_size")
                        rawSize = try reader.int64()
                    case 1, 3, 4, 5, 6, 7:
                        try WireReader.expect(wireType, 2, field: "Blob data")
                        data = try reader.lengthDelimited()
                        encoding = ["raw", "", "zlib", "lzma", "bzip2", "lz4", "zstd"][Int(number) - 1]
                    default: try reader.skip(wireType)
                    }
                }
            }
        } catch {
            throw corrupt(frame.offset, error.what)
        }
        guard let data else { throw corrupt(frame.offset, "a blob without data") }
        switch encoding {
        case "raw":
            current = (frame.offset, data, false, data.count, 0)
            return data.count
        case "zlib":
            guard let rawSize, (0...Int64(Self.maximumBlobSize)).contains(rawSize) else {
                throw corrupt(
                    frame.offset,
                    "a zlib blob whose raw_size (\(rawSize.map(String.init) ?? "none")) is not 0 to 32 MiB")
            }
            inflateReset(stream)
            current = (frame.offset, data, true, Int(rawSize), 0)
            return Int(rawSize)
        default:
            throw ImportError.unreadable(
                path: path,
                reason: "the blob at byte \(frame.offset) is compressed with \(encoding), which this reader does not "
                    + "support (zlib or none): convert the file with `osmium cat FILE -o new.osm.pbf`")
        }
    }

    /// Puts the first `count` bytes (at most all) of the open blob's contents at the start of
    /// `output`, inflating on from where the last call stopped.
    func fill(_ count: Int, into output: inout [UInt8]) throws {
        guard var blob = current else { return }
        let count = min(count, blob.rawSize)
        guard count > blob.produced else { return }
        // Sized for the whole blob at once: a later, larger allocation would drop the part made.
        if output.count < blob.rawSize { output = [UInt8](repeating: 0, count: blob.rawSize) }
        guard blob.zlib else {
            output.withUnsafeMutableBytes { target in
                compressed.withUnsafeBytes {
                    (target.baseAddress! + blob.produced).copyMemory(
                        from: $0.baseAddress! + blob.data.lowerBound + blob.produced, byteCount: count - blob.produced)
                }
            }
            blob.produced = count
            current = blob
            return
        }
        let finishing = count == blob.rawSize
        let (result, produced, leftIn) = compressed.withUnsafeMutableBytes { source in
            output.withUnsafeMutableBytes { target in
                let consumed = Int(stream.pointee.total_in)
                stream.pointee.next_in =
                    source.baseAddress!.assumingMemoryBound(to: Bytef.self) + blob.data.lowerBound + consumed
                stream.pointee.avail_in = uInt(blob.data.count - consumed)
                stream.pointee.next_out = target.baseAddress!.assumingMemoryBound(to: Bytef.self) + blob.produced
                stream.pointee.avail_out = uInt(count - blob.produced)
                let result = CZlib.inflate(stream, finishing ? Z_FINISH : Z_SYNC_FLUSH)
                return (result, Int(stream.pointee.total_out), Int(stream.pointee.avail_in))
            }
        }
        blob.produced = produced
        current = blob
        let frame = blob.frame
        switch result {
        case Z_STREAM_END where produced == blob.rawSize, Z_OK where !finishing && produced == count: return
        case Z_STREAM_END:
            throw corrupt(frame, "zlib data inflates to \(produced) bytes, not the \(blob.rawSize) its raw_size says")
        case Z_BUF_ERROR where leftIn > 0, Z_OK where leftIn > 0:
            throw corrupt(frame, "zlib data inflates to more than the \(blob.rawSize) bytes its raw_size says")
        case Z_BUF_ERROR, Z_OK: throw corrupt(frame, "zlib data is truncated")
        default: throw corrupt(frame, "zlib data is corrupt (zlib error \(result))")
        }
    }

    /// Whether a file's first bytes are a PBF's: a BlobHeader length, then field 1 (`type`) of
    /// 9 bytes, `OSMHeader`.
    static func looksLikePBF(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 15 && prefix[0] == 0 && prefix[1] == 0 && prefix[4] == 0x0A && prefix[5] == 9
            && Array(prefix[6..<15]) == Array("OSMHeader".utf8)
    }
}
