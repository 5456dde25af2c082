import BurgerMapCore
import Foundation
import Testing

@Suite("OSM place reader: broken and hostile files")
struct OSMReaderErrorTests {
    /// The message of the error that opening and reading `path` to the end throws.
    func failure(_ path: String) -> String? {
        do {
            _ = try readOSM(path, .burger)
            return nil
        } catch {
            #expect(error is ImportError, "\(error)")
            return "\(error)"
        }
    }

    @Test("files that are not OSM, or packed, are refused with the file's name and why")
    func notOSM() throws {
        let files = try OSMTestFiles(formats: [])
        let cases: [(String, [UInt8], String)] = [
            ("places.csv", Array("id,name,lat,lng\n1,Burger,37.5,127.0\n".utf8), "neither OSM PBF"),
            ("empty.osm", [], "the file is empty"),
            ("extract.osm.gz", [0x1F, 0x8B, 0x08, 0x00, 0x00], "compressed (gzip or bzip2)"),
            (
                "route.osm", Array("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk/></gpx>\n".utf8),
                "root element is not <osm>"
            ),
            (
                "cut.osm", Array("<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n <node id=\"1\" lat=\"1".utf8),
                "ends inside a tag"
            ),
            (
                "bad.osm", Array("<osm version=\"0.6\"><node id=\"x\" lat=\"1\" lon=\"2\"/></osm>".utf8),
                "without a numeric id"
            ),
        ]
        for (name, bytes, message) in cases {
            let path = try files.write(name, bytes)
            let error = failure(path)
            #expect(error?.contains(path) == true, "\(name): \(error ?? "no error")")
            #expect(error?.contains(message) == true, "\(name): \(error ?? "no error")")
        }
    }

    @Test("coordinates that are no position (infinite, out of range, missing, huge) make skips, never a hang")
    func strangeCoordinates() throws {
        let files = try OSMTestFiles(formats: [])
        let burger = #"<tag k="amenity" v="fast_food"/><tag k="cuisine" v="burger"/>"#
        let xml = """
            <osm version="0.6">
            <node id="1" lat="1e400" lon="2">\(burger)</node>
            <node id="2" lat="91" lon="2">\(burger)</node>
            <node id="3">\(burger)</node>
            <node id="4" lat="1" lon="1e300"/><node id="5" lat="1" lon="2"/><node id="6" lat="2" lon="2"/>
            <way id="7"><nd ref="4"/><nd ref="5"/><nd ref="6"/><nd ref="4"/>\(burger)</way>
            </osm>
            """
        let items = try readOSM(try files.write("strange.osm", Array(xml.utf8)), .burger)
        #expect(
            Array(items.prefix(3)) == [
                .skip(id: "node/1", reason: "node/1: it has no position"),
                .skip(id: "node/2", reason: "node/2: position (91.0, 2.0) is not on Earth"),
                .skip(id: "node/3", reason: "node/3: it has no position"),
            ])
        // The way's outline is nonsense; whatever it yields, it is one item and ends.
        #expect(items.map(\.id) == ["node/1", "node/2", "node/3", "way/7"])
    }

    @Test("PBF files this reader cannot read: history, lzma blobs, over-size frames, truncation")
    func unsupportedPBF() throws {
        let files = try OSMTestFiles(formats: [.pbf])
        var lzma = ProtobufBytes()
        lzma.field(2, varint: 100)
        lzma.field(4, [1, 2, 3])
        var bigHeader = ProtobufBytes.header()
        bigHeader += [0x00, 0x01, 0x00, 0x01] + [UInt8](repeating: 0, count: 16)
        let real = [UInt8](try Data(contentsOf: URL(fileURLWithPath: files.path(.pbf))))
        let cases: [(String, [UInt8], String)] = [
            (
                "history.osh.pbf", ProtobufBytes.header(["OsmSchema-V0.6", "HistoricalInformation"]),
                "requires the PBF feature \"HistoricalInformation\" (a history file, not an extract)"
            ),
            (
                "lzma.osm.pbf", ProtobufBytes.header() + ProtobufBytes.frame("OSMData", blob: lzma.bytes),
                "compressed with lzma, which this reader does not support"
            ),
            ("header.osm.pbf", bigHeader, "a BlobHeader of 65537 bytes, over the format's 64 KiB limit"),
            (
                "blob.osm.pbf", ProtobufBytes.header() + ProtobufBytes.frame("OSMData", blob: [], dataSize: 40 << 20),
                "a blob of 41943040 bytes, over the format's 32 MiB limit"
            ),
            ("cut.osm.pbf", Array(real[0..<(real.count * 2 / 3)]), "truncated"),
            (
                "nodata.osm.pbf", ProtobufBytes.header() + ProtobufBytes.frame("OSMData", blob: [0x10, 0x05]),
                "a blob without data"
            ),
        ]
        for (name, bytes, message) in cases {
            let path = try files.write(name, bytes)
            let error = failure(path)
            #expect(error?.contains(path) == true, "\(name): \(error ?? "no error")")
            #expect(error?.contains(message) == true, "\(name): \(error ?? "no error")")
        }
    }

    @Test("random damage to real PBF files ends in a result or an ImportError, never a crash")
    func hostileBytes() throws {
        let files = try OSMTestFiles(formats: [.pbf, .pbfRaw, .pbfPlainNodes])
        var generator = SeededGenerator(seed: 2024)
        var outcomes = [0, 0]
        for format in [OSMTestFiles.Format.pbfRaw, .pbfPlainNodes, .pbf] {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: files.path(format))))
            for round in 0..<150 {
                var bytes = original
                for _ in 0...Int.random(in: 0...3, using: &generator) {
                    Self.damage(&bytes, using: &generator)
                }
                let path = try files.write("damaged-\(format.rawValue)-\(round).osm.pbf", bytes)
                do {
                    for filter in OSMPlaceFilter.allCases { _ = try readOSM(path, filter, limit: 10_000) }
                    outcomes[0] += 1
                } catch {
                    #expect(error is ImportError, "\(error)")
                    outcomes[1] += 1
                }
                try FileManager.default.removeItem(atPath: path)
            }
        }
        // Both outcomes happen: the damage is neither always harmless nor always caught at once.
        #expect(outcomes[0] > 0 && outcomes[1] > 0, "read \(outcomes[0]), refused \(outcomes[1])")
    }

    @Test("random damage to an XML extract ends in a result or an ImportError, never a crash")
    func hostileXML() throws {
        let files = try OSMTestFiles(formats: [])
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: files.path(.xml))))
        var generator = SeededGenerator(seed: 2025)
        var outcomes = [0, 0]
        for round in 0..<150 {
            var bytes = original
            for _ in 0...Int.random(in: 0...3, using: &generator) { Self.damage(&bytes, using: &generator) }
            let path = try files.write("damaged-\(round).osm", bytes)
            do {
                _ = try readOSM(path, .allFood, limit: 10_000)
                outcomes[0] += 1
            } catch {
                #expect(error is ImportError, "\(error)")
                outcomes[1] += 1
            }
            try FileManager.default.removeItem(atPath: path)
        }
        #expect(outcomes[0] > 0 && outcomes[1] > 0, "read \(outcomes[0]), refused \(outcomes[1])")
    }

    /// One random change: a flipped or replaced byte, a cut, a duplicated or dropped stretch.
    static func damage(_ bytes: inout [UInt8], using generator: inout SeededGenerator) {
        guard bytes.count > 2 else { return }
        let at = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
        case 1: bytes[at] = [0x00, 0x7F, 0x80, 0xFF][Int.random(in: 0..<4, using: &generator)]
        case 2: bytes.removeSubrange(at...)
        case 3:
            let end = min(bytes.count, at + Int.random(in: 1...64, using: &generator))
            bytes.insert(contentsOf: bytes[at..<end], at: at)
        case 4: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...16, using: &generator)))
        default:
            for index in at..<min(bytes.count, at + 8) { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        }
    }
}
