import BurgerMapCore
import Foundation
import Testing

@Suite("OSM place reader")
struct OSMPlaceReaderTests {
    /// Longitudes compared around the circle (a place on the antimeridian is at 180 or -180).
    static func lngDistance(_ a: Double, _ b: Double) -> Double {
        abs(remainder(a - b, 360))
    }

    @Test(
        "finds the places the extract holds, where they are, with every tag; reports the ones it cannot place",
        arguments: OSMTestFiles.Format.allCases, OSMPlaceFilter.allCases)
    func readsTheExtract(format: OSMTestFiles.Format, filter: OSMPlaceFilter) throws {
        let fixture = OSMFixture.sample()
        let files = try OSMTestFiles(fixture, formats: [format])
        let items = try readOSM(files.path(format), filter)
        let expected = fixture.expectedItems(filter)
        #expect(items.map(\.id).sorted() == expected.keys.sorted())
        #expect(Set(items.map(\.id)).count == items.count, "each object at most once")
        for item in items {
            guard let want = expected[item.id] else { continue }
            switch item {
            case .place(let place):
                #expect(want.skipReason == nil, "\(place.id) should be skipped: \(want.skipReason ?? "")")
                #expect(abs(place.lat - want.lat) <= 1e-7, "\(place.id) latitude \(place.lat), expected \(want.lat)")
                #expect(
                    Self.lngDistance(place.lng, want.lng) <= 1e-7,
                    "\(place.id) longitude \(place.lng), expected \(want.lng)")
                #expect((-180...180).contains(place.lng))
                #expect(place.tags == want.tags, "\(place.id)")
            case .skip(let id, let reason):
                #expect(reason == want.skipReason, "\(id)")
            }
        }
    }

    @Test("PBF in every encoding and XML yield the same items in the same order", arguments: OSMPlaceFilter.allCases)
    func formatsAgree(filter: OSMPlaceFilter) throws {
        let files = try OSMTestFiles()
        let xml = try readOSM(files.path(.xml), filter)
        #expect(!xml.isEmpty)
        for format in OSMTestFiles.Format.allCases where format != .xml {
            #expect(try readOSM(files.path(format), filter) == xml, "\(format)")
        }
        // Nodes, then ways, then relations, each in file order.
        let kinds = xml.map { $0.id.split(separator: "/")[0] }
        #expect(
            kinds
                == kinds.sorted {
                    ["node": 0, "way": 1, "relation": 2][$0]! < ["node": 0, "way": 1, "relation": 2][$1]!
                })
    }

    @Test("progress only grows and ends at the announced size", arguments: [OSMTestFiles.Format.xml, .pbf])
    func progress(format: OSMTestFiles.Format) throws {
        let files = try OSMTestFiles(formats: [format])
        let path = files.path(format)
        let reader = try OSMPlaceReader(path: path, filter: .burger)
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(reader.size == 3 * Int64(fileSize))
        var seen: [Int64] = [reader.bytesRead]
        while try reader.next() != nil { seen.append(reader.bytesRead) }
        seen.append(reader.bytesRead)
        #expect(seen == seen.sorted())
        #expect(seen.last == reader.size)
    }

    @Test("a node named only in English, a Hangul and a kana name come through as written")
    func names() throws {
        let files = try OSMTestFiles(formats: [.pbf])
        let places = try readOSM(files.path(.pbf), .burger).compactMap { item -> OSMPlace? in
            if case .place(let place) = item { return place } else { return nil }
        }
        let byID = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
        #expect(byID["node/1"]?.tags["name:ko"] == "수제버거 하우스")
        #expect(byID["node/2"]?.tags["name"] == "バーガー屋")
        #expect(byID["node/3"]?.tags["name"] == nil)
        #expect(byID["node/3"]?.tags["name:en"] == "English Only Burger")
        let cafe = try readOSM(files.path(.xml), .allFood).first { $0.id == "node/4" }
        guard case .place(let place) = cafe else { throw OSMTestFiles.OsmiumFailed(description: "node/4 not read") }
        #expect(place.tags["name"] == "Café \"Latte\" & Co <1>")
    }

    @Test("a block that mixes dense nodes and a way, with its own granularity and offsets (which osmium never writes)")
    func mixedBlock() throws {
        let files = try OSMTestFiles(formats: [])
        func zigzag(_ values: [Int64]) -> [UInt8] {
            var packed = ProtobufBytes()
            for value in values { packed.varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }
            return packed.bytes
        }
        func plain(_ values: [UInt64]) -> [UInt8] {
            var packed = ProtobufBytes()
            for value in values { packed.varint(value) }
            return packed.bytes
        }
        var table = ProtobufBytes()
        for text in ["", "amenity", "fast_food", "cuisine", "burger", "name", "Mixed"] {
            table.field(1, Array(text.utf8))
        }
        var dense = ProtobufBytes()
        dense.field(1, zigzag([1, 1, 1, 1]))  // ids 1...4, delta coded
        dense.field(8, zigzag([0, 0, 1000, 0]))  // latitudes 0, 0, 1000, 1000 (granularity units)
        dense.field(9, zigzag([0, 1000, 0, -1000]))  // longitudes 0, 1000, 1000, 0
        dense.field(10, plain([0, 0, 0, 0]))
        var nodeGroup = ProtobufBytes()
        nodeGroup.field(2, dense.bytes)
        var way = ProtobufBytes()
        way.field(1, varint: 10)
        way.field(2, plain([1, 3, 5]))
        way.field(3, plain([2, 4, 6]))
        way.field(8, zigzag([1, 1, 1, 1, -3]))  // refs 1, 2, 3, 4, 1
        var wayGroup = ProtobufBytes()
        wayGroup.field(3, way.bytes)
        var block = ProtobufBytes()
        block.field(1, table.bytes)
        block.field(2, nodeGroup.bytes)
        block.field(2, wayGroup.bytes)
        block.field(17, varint: 1000)  // granularity: 1000 nanodegrees
        block.field(19, varint: 37_500_000_000)  // lat_offset, nanodegrees
        block.field(20, varint: 127_000_000_000)  // lon_offset
        let path = try files.write(
            "mixed.osm.pbf",
            ProtobufBytes.header() + ProtobufBytes.frame("OSMData", blob: ProtobufBytes.rawBlob(block.bytes)))
        let items = try readOSM(path, .burger)
        guard items.count == 1, case .place(let place) = items[0] else {
            Issue.record("expected one place, got \(items)")
            return
        }
        #expect(place.id == "way/10")
        #expect(abs(place.lat - 37.5005) <= 1e-9 && abs(place.lng - 127.0005) <= 1e-9, "\(place)")
        #expect(place.tags == ["amenity": "fast_food", "cuisine": "burger", "name": "Mixed"])
    }
}
