import Foundation

/// The passes of a read. Ways and relations come after nodes in a file, and a way only names its
/// nodes, so positions can only be had in a later pass that knows which nodes it needs.
enum OSMPass {
    /// Matching closed ways (refs and tags) and matching multipolygon relations (member ids).
    case waysAndRelations
    /// The node lists of the multipolygons' member ways (only when a relation matched).
    case memberWays
    /// Matching nodes, and the positions of the nodes the kept ways need.
    case nodes
}

/// The positions of the nodes that the kept ways name, and of no other node: a sorted id array
/// searched by bisection, positions in parallel arrays (24 bytes a needed node; a country's
/// burger places need tens of thousands).
struct OSMNodeTable {
    private(set) var ids: [Int64]
    private var lats: [Double]
    private var lons: [Double]

    init(ids unsorted: [Int64]) {
        ids = Self.sortedUnique(unsorted)
        lats = [Double](repeating: .nan, count: ids.count)
        lons = lats
    }

    static func sortedUnique(_ values: [Int64]) -> [Int64] {
        var sorted = values.sorted()
        var unique = 0
        for value in sorted where unique == 0 || sorted[unique - 1] != value {
            sorted[unique] = value
            unique += 1
        }
        sorted.removeSubrange(unique...)
        return sorted
    }

    /// Where `id` would be in the sorted `ids` (the first index whose id is not smaller).
    static func lowerBound(_ id: Int64, in ids: [Int64]) -> Int {
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of `id` in the sorted `ids`, or `nil`.
    static func search(_ id: Int64, in ids: [Int64]) -> Int? {
        let index = lowerBound(id, in: ids)
        return index < ids.count && ids[index] == id ? index : nil
    }

    func index(of id: Int64) -> Int? { Self.search(id, in: ids) }

    mutating func set(_ index: Int, lat: Double, lon: Double) {
        lats[index] = lat
        lons[index] = lon
    }

    func position(of id: Int64) -> OSMPoint? {
        guard let index = index(of: id), !lats[index].isNaN else { return nil }
        return OSMPoint(lat: lats[index], lon: lons[index])
    }

    /// A position in `ids` for looking up ids that mostly come in ascending order (as they do in
    /// a sorted extract): a step forward instead of a bisection per node, which matters when ten
    /// million nodes go by for a few thousand needed ones.
    struct Cursor {
        var index = 0
        var last = Int64.min
    }

    @inline(__always)
    static func index(of id: Int64, in ids: [Int64], cursor: inout Cursor) -> Int? {
        if id < cursor.last {
            cursor.index = lowerBound(id, in: ids)
        } else {
            while cursor.index < ids.count && ids[cursor.index] < id { cursor.index += 1 }
        }
        cursor.last = id
        return cursor.index < ids.count && ids[cursor.index] == id ? cursor.index : nil
    }
}

/// What the passes keep, shared by the PBF and XML sources, and the places they make of it.
final class OSMCollector {
    let filter: OSMPlaceFilter

    struct Way {
        var id: Int64
        var refs: [Int64]
        var tags: [String: String]
    }

    struct Relation {
        var id: Int64
        var tags: [String: String]
        var outer: [Int64]
        var inner: [Int64]
    }

    private(set) var ways: [Way] = []
    private(set) var relations: [Relation] = []
    /// The member ways pass 2 looks for (sorted, unique), and their node lists once found.
    private(set) var memberWayIDs: [Int64] = []
    private(set) var memberWayRefs: [[Int64]?] = []
    private(set) var nodes = OSMNodeTable(ids: [])
    var output: [OSMItem] = []
    private var outputHead = 0

    init(filter: OSMPlaceFilter) {
        self.filter = filter
    }

    // MARK: pass 1

    /// A way whose tags may match: kept when they do and it is closed (open ways are not areas).
    func way(id: Int64, tags: [String: String], refs: [Int64]) {
        guard refs.count >= 4, refs.first == refs.last, filter.matches(tags) else { return }
        ways.append(Way(id: id, refs: refs, tags: tags))
    }

    /// Whether a relation with these tags is a place (then its members are wanted).
    func wantsRelation(_ tags: [String: String]) -> Bool {
        tags["type"] == "multipolygon" && filter.matches(tags)
    }

    /// A matching multipolygon: its way members by role (`outer` or none, and `inner`).
    func relation(id: Int64, tags: [String: String], wayMembers: [(id: Int64, role: String)]) {
        relations.append(
            Relation(
                id: id, tags: tags, outer: wayMembers.filter { $0.role == "outer" || $0.role.isEmpty }.map(\.id),
                inner: wayMembers.filter { $0.role == "inner" }.map(\.id)))
    }

    /// Ends pass 1; whether pass 2 (member ways) is needed.
    func needsMemberWays() -> Bool {
        memberWayIDs = OSMNodeTable.sortedUnique(relations.flatMap { $0.outer + $0.inner })
        memberWayRefs = [[Int64]?](repeating: nil, count: memberWayIDs.count)
        return !memberWayIDs.isEmpty
    }

    // MARK: pass 2

    /// The index of a member way that pass 2 wants, or `nil`.
    func memberWayIndex(_ id: Int64) -> Int? {
        OSMNodeTable.search(id, in: memberWayIDs)
    }

    func setMemberWay(_ index: Int, refs: [Int64]) {
        memberWayRefs[index] = refs
    }

    /// Ends the way passes: the nodes whose positions the last pass records.
    func prepareNodes() {
        nodes = OSMNodeTable(ids: ways.flatMap(\.refs) + memberWayRefs.flatMap { $0 ?? [] })
    }

    // MARK: pass 3

    /// The ids whose positions pass 3 records (sorted): sources look them up with
    /// `OSMNodeTable.index(of:in:cursor:)` and report hits to `setPosition`.
    var neededNodeIDs: [Int64] { nodes.ids }

    func setPosition(_ index: Int, lat: Double, lon: Double) {
        nodes.set(index, lat: lat, lon: lon)
    }

    /// A node whose tags may match.
    func node(id: Int64, lat: Double, lon: Double, tags: [String: String]) {
        guard filter.matches(tags) else { return }
        output.append(place("node/\(id)", OSMPoint(lat: lat, lon: lon), tags))
    }

    /// The next item to hand out, if any is waiting.
    func nextOutput() -> OSMItem? {
        guard outputHead < output.count else {
            output.removeAll(keepingCapacity: true)
            outputHead = 0
            return nil
        }
        outputHead += 1
        return output[outputHead - 1]
    }
}
