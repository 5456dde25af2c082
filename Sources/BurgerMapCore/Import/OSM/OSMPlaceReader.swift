import Foundation

/// A file format's reader of objects, pass by pass, feeding an `OSMCollector`.
protocol OSMSource: AnyObject {
    /// Bytes gone by over all passes so far (see `OSMPlaceReader.bytesRead`).
    var bytesRead: Int64 { get }
    /// Starts `pass` at the beginning of the file.
    func begin(_ pass: OSMPass) throws
    /// Reads on (a block, or a bounded stretch of text), handing what it finds to the collector;
    /// `false` at the end of the pass.
    func advance() throws -> Bool
}

extension OSMPass {
    /// The pass's place in the progress count: each pass is worth one file size.
    var number: Int64 {
        switch self {
        case .waysAndRelations: 0
        case .memberWays: 1
        case .nodes: 2
        }
    }
}

/// Reads the places of an OpenStreetMap extract, `.osm.pbf` or `.osm` XML (the format is told by
/// the content, not the name), one item at a time, in memory that does not grow with the extract:
/// only the matching ways and relations and the positions of their nodes are kept, never every
/// node.
///
/// Up to three passes over the file, because ways and relations follow the nodes they name:
/// 1. ways and relations: matching closed ways (node ids and tags) and matching multipolygon
///    relations (member way ids and roles);
/// 2. only when a relation matched: the node ids of its member ways;
/// 3. nodes: matching nodes are yielded as they come, and the positions of the nodes named in
///    passes 1 and 2 are recorded; then the ways and relations are yielded.
///
/// Order: nodes, then ways, then relations, each in file order (the same on every run).
/// Not thread-safe: one thread calls `next()` (the importer's reading thread). It decompresses
/// on that thread too, leaving the other core to the database: 1.1 s for scripts/bench-osm's
/// 10,000,000 nodes and 1,000,000 ways, a quarter to a third of `osmium tags-filter`'s time, so a
/// decompression thread of its own was not needed.
package final class OSMPlaceReader {
    private let collector: OSMCollector
    private let source: any OSMSource
    private var pass: OSMPass? = .waysAndRelations
    private let fileSize: Int64

    /// Opens `path` (a PBF or XML extract, told apart by its first bytes). Throws an
    /// `ImportError` naming the file and the problem: not OSM at all, a compressed file, an
    /// unsupported PBF feature or compression, a corrupt or truncated header.
    package init(path: String, filter: OSMPlaceFilter) throws {
        collector = OSMCollector(filter: filter)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else {
            throw ImportError.unreadable(path: path, reason: "no readable file there")
        }
        let prefix = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        fileSize = Int64((try? handle.seekToEnd()) ?? 0)
        try? handle.close()
        switch try Self.format(of: prefix, path: path) {
        case .pbf: source = try PBFSource(path: path, collector: collector)
        case .xml: source = try OSMXMLSource(path: path, collector: collector)
        }
        try source.begin(.waysAndRelations)
    }

    /// Progress over all passes, in bytes: each pass adds the file's size (a pass that is not
    /// needed, or blocks a pass skips, count as read at once), so `bytesRead` only grows and ends
    /// at `size`.
    package var bytesRead: Int64 { min(source.bytesRead, 3 * fileSize) }
    /// Three times the file's size (the most passes a read makes), the total for `bytesRead`.
    package var size: Int64? { 3 * fileSize }

    /// The next place or skipped object, or `nil` at the end. Throws an `ImportError` when the
    /// file turns out to be corrupt or truncated part way.
    package func next() throws -> OSMItem? {
        while true {
            if let item = collector.nextOutput() { return item }
            guard let current = pass else { return nil }
            if try source.advance() { continue }
            switch current {
            case .waysAndRelations:
                pass = collector.needsMemberWays() ? .memberWays : .nodes
                if pass == .nodes { collector.prepareNodes() }
            case .memberWays:
                collector.prepareNodes()
                pass = .nodes
            case .nodes:
                collector.finish()
                pass = nil
            }
            if let pass { try source.begin(pass) }
        }
    }

    private enum Format { case pbf, xml }

    private static func format(of prefix: [UInt8], path: String) throws -> Format {
        if PBFFile.looksLikePBF(prefix) { return .pbf }
        var text = prefix[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if text.starts(with: Array("<?xml".utf8)) || text.starts(with: Array("<osm".utf8)) { return .xml }
        let reason: String
        if prefix.isEmpty {
            reason = "the file is empty"
        } else if prefix.starts(with: [0x1F, 0x8B]) || prefix.starts(with: Array("BZh".utf8)) {
            reason = "it is compressed (gzip or bzip2): decompress it first, or convert it to PBF"
        } else {
            reason = "it is neither OSM PBF (a BlobHeader with \"OSMHeader\") nor OSM XML (<?xml or <osm)"
        }
        throw ImportError.notADataset(path: path, reason: reason)
    }
}
