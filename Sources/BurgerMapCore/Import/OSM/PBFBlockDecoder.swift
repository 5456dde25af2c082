import Foundation

/// Decodes `PrimitiveBlock`s (osmformat.proto) for one pass at a time, reading only what the pass
/// needs: the way pass skips node groups as whole fields, the node pass skips ways and relations,
/// and tags become strings only for objects whose `amenity` value index is one the filter
/// accepts (looked up once per block in its string table).
final class PBFBlockDecoder {
    /// The kinds of objects a block holds, recorded in pass 1 so that later passes read only the
    /// blocks that can matter to them.
    struct Kinds: OptionSet {
        let rawValue: UInt8
        static let nodes = Kinds(rawValue: 1)
        static let ways = Kinds(rawValue: 2)
        static let relations = Kinds(rawValue: 4)
    }

    let collector: OSMCollector
    private let amenityKey = Array("amenity".utf8)
    private let amenityValues: [[UInt8]]
    /// No string has this index: the block's table lacks the string.
    static let absent = UInt64.max

    // The current block.
    private(set) var block = WireReader(UnsafeRawBufferPointer(start: nil, count: 0))
    private var table: Range<Int> = 0..<0
    private var stringsRead = false
    private var stringStarts: [Int] = []
    private var stringEnds: [Int] = []
    /// The index of `amenity` in the block's string table (or `absent`), and of each accepted value.
    private(set) var amenityIndex = absent
    private(set) var valueIndices: [UInt64] = []
    private var groups: [Range<Int>] = []
    private(set) var granularity: Int64 = 100
    private(set) var latOffset: Int64 = 0
    private(set) var lonOffset: Int64 = 0
    /// Where the node pass is in the needed ids (blocks come in id order).
    var cursor = OSMNodeTable.Cursor()

    init(collector: OSMCollector) {
        self.collector = collector
        amenityValues = collector.filter.amenities.map { Array($0.utf8) }
    }

    /// Decodes one block's bytes for `pass`; returns what kinds of objects it holds.
    func decode(_ reader: WireReader, pass: OSMPass) throws(PBFCorruption) -> Kinds {
        block = reader
        table = 0..<0
        stringsRead = false
        groups.removeAll(keepingCapacity: true)
        granularity = 100
        latOffset = 0
        lonOffset = 0
        while let (number, wireType) = try block.field() {
            switch number {
            case 1:
                try WireReader.expect(wireType, 2, field: "PrimitiveBlock.stringtable")
                table = try block.lengthDelimited()
            case 2:
                try WireReader.expect(wireType, 2, field: "PrimitiveBlock.primitivegroup")
                groups.append(try block.lengthDelimited())
            case 17:
                try WireReader.expect(wireType, 0, field: "PrimitiveBlock.granularity")
                granularity = try block.int64()
            case 19:
                try WireReader.expect(wireType, 0, field: "PrimitiveBlock.lat_offset")
                latOffset = try block.int64()
            case 20:
                try WireReader.expect(wireType, 0, field: "PrimitiveBlock.lon_offset")
                lonOffset = try block.int64()
            default: try block.skip(wireType)
            }
        }
        var kinds: Kinds = []
        for group in groups {
            var reader = block.reader(group)
            while let (number, wireType) = try reader.field() {
                switch (number, pass) {
                case (1, .nodes):
                    try WireReader.expect(wireType, 2, field: "PrimitiveGroup.nodes")
                    try node(reader.lengthDelimited())
                case (2, .nodes):
                    try WireReader.expect(wireType, 2, field: "PrimitiveGroup.dense")
                    try denseNodes(reader.lengthDelimited())
                case (3, .waysAndRelations), (3, .memberWays):
                    try WireReader.expect(wireType, 2, field: "PrimitiveGroup.ways")
                    try way(reader.lengthDelimited(), pass: pass)
                case (4, .waysAndRelations):
                    try WireReader.expect(wireType, 2, field: "PrimitiveGroup.relations")
                    try relation(reader.lengthDelimited())
                default: try reader.skip(wireType)
                }
                switch number {
                case 1, 2: kinds.insert(.nodes)
                case 3: kinds.insert(.ways)
                case 4: kinds.insert(.relations)
                default: break
                }
            }
        }
        return kinds
    }

    /// Reads the string table (once per block, and only for blocks that look at tags) and finds
    /// `amenity` and the accepted values in it.
    func readStrings() throws(PBFCorruption) {
        guard !stringsRead else { return }
        stringsRead = true
        stringStarts.removeAll(keepingCapacity: true)
        stringEnds.removeAll(keepingCapacity: true)
        amenityIndex = Self.absent
        valueIndices.removeAll(keepingCapacity: true)
        var reader = block.reader(table)
        while let (number, wireType) = try reader.field() {
            guard number == 1 else {
                try reader.skip(wireType)
                continue
            }
            try WireReader.expect(wireType, 2, field: "StringTable.s")
            let range = try reader.lengthDelimited()
            let index = UInt64(stringStarts.count)
            stringStarts.append(range.lowerBound)
            stringEnds.append(range.upperBound)
            if block.bytes(range, equal: amenityKey) {
                amenityIndex = index
            } else if amenityValues.contains(where: { block.bytes(range, equal: $0) }) {
                valueIndices.append(index)
            }
        }
    }

    func string(_ index: UInt64) throws(PBFCorruption) -> String {
        guard index < UInt64(stringStarts.count) else {
            throw PBFCorruption(what: "string index \(index) is outside the block's table of \(stringStarts.count)")
        }
        return block.string(stringStarts[Int(index)]..<stringEnds[Int(index)])
    }

    /// Whether an object's parallel `keys` and `vals` have `amenity` = an accepted value: the
    /// test every object passes before any of its tags becomes a string.
    func mayMatch(keys: Range<Int>, values: Range<Int>) throws(PBFCorruption) -> Bool {
        try readStrings()
        guard amenityIndex != Self.absent else { return false }
        var keyReader = block.reader(keys)
        var position = 0
        while true {
            guard !keyReader.atEnd else { return false }
            if try keyReader.varint() == amenityIndex { break }
            position += 1
        }
        var valueReader = block.reader(values)
        for _ in 0..<position { _ = try valueReader.varint() }
        guard !valueReader.atEnd else { throw PBFCorruption(what: "an object has more tag keys than values") }
        return valueIndices.contains(try valueReader.varint())
    }

    /// The tags of parallel `keys` and `vals` arrays.
    func tags(keys: Range<Int>, values: Range<Int>) throws(PBFCorruption) -> [String: String] {
        var tags: [String: String] = [:]
        var keyReader = block.reader(keys)
        var valueReader = block.reader(values)
        while !keyReader.atEnd {
            let key = try keyReader.varint()
            guard !valueReader.atEnd else { throw PBFCorruption(what: "an object has more tag keys than values") }
            tags[try string(key)] = try string(valueReader.varint())
        }
        return tags
    }

    /// A delta-coded list of ids (way refs, relation member ids).
    func deltas(_ range: Range<Int>) throws(PBFCorruption) -> [Int64] {
        var reader = block.reader(range)
        var result: [Int64] = []
        result.reserveCapacity(range.count)
        var value: Int64 = 0
        while !reader.atEnd {
            value &+= try reader.signed()
            result.append(value)
        }
        return result
    }

    /// A coordinate in degrees: `(offset + granularity × value)` nanodegrees. One division of the
    /// exact integer gives the same Double as parsing the XML's decimal text of the same value.
    @inline(__always)
    func degrees(_ value: Int64, offset: Int64) -> Double {
        Double(offset &+ granularity &* value) / 1e9
    }

    private func way(_ range: Range<Int>, pass: OSMPass) throws(PBFCorruption) {
        var reader = block.reader(range)
        var id: Int64 = 0
        var keys = 0..<0
        var values = 0..<0
        var refs = 0..<0
        while let (number, wireType) = try reader.field() {
            switch number {
            case 1:
                try WireReader.expect(wireType, 0, field: "Way.id")
                id = try reader.int64()
            case 2, 3, 8:
                try WireReader.expect(wireType, 2, field: "Way.keys, vals or refs")
                let field = try reader.lengthDelimited()
                if number == 2 { keys = field } else if number == 3 { values = field } else { refs = field }
            default: try reader.skip(wireType)
            }
        }
        if pass == .memberWays {
            if let index = collector.memberWayIndex(id) { collector.setMemberWay(index, refs: try deltas(refs)) }
        } else if try mayMatch(keys: keys, values: values) {
            collector.way(id: id, tags: try tags(keys: keys, values: values), refs: try deltas(refs))
        }
    }

    private func relation(_ range: Range<Int>) throws(PBFCorruption) {
        var reader = block.reader(range)
        var id: Int64 = 0
        var fields = [0..<0, 0..<0, 0..<0, 0..<0, 0..<0]  // keys, vals, roles_sid, memids, types
        while let (number, wireType) = try reader.field() {
            switch number {
            case 1:
                try WireReader.expect(wireType, 0, field: "Relation.id")
                id = try reader.int64()
            case 2, 3, 8, 9, 10:
                try WireReader.expect(wireType, 2, field: "Relation.keys, vals, roles_sid, memids or types")
                let field = try reader.lengthDelimited()
                switch number {
                case 2: fields[0] = field
                case 3: fields[1] = field
                case 8: fields[2] = field
                case 9: fields[3] = field
                default: fields[4] = field
                }
            default: try reader.skip(wireType)
            }
        }
        guard try mayMatch(keys: fields[0], values: fields[1]) else { return }
        let tags = try tags(keys: fields[0], values: fields[1])
        guard collector.wantsRelation(tags) else { return }
        var roles = block.reader(fields[2])
        var types = block.reader(fields[4])
        var members: [(id: Int64, role: String)] = []
        for memberID in try deltas(fields[3]) {
            guard !roles.atEnd, !types.atEnd else {
                throw PBFCorruption(what: "relation \(id) has more member ids than roles or types")
            }
            let role = try string(roles.varint())
            if try types.varint() == 1 { members.append((memberID, role)) }
        }
        collector.relation(id: id, tags: tags, wayMembers: members)
    }
}
