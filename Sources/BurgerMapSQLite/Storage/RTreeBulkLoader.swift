import BurgerMapCore
import GRDB
import GRDBSQLite

/// Rebuilds a 2-D SQLite R*Tree from scratch by writing its shadow tables directly, packed
/// Sort-Tile-Recursive (see `tiles`).
///
/// Inserting through the virtual table rewrites a whole node blob per entry (about 8 µs each,
/// even in sorted order); a million-place import spent most of its time there. Packing the tree
/// bottom-up writes each node once and yields full, spatially tight nodes, which also makes
/// searches visit fewer cells. No package offers this, so it is written here against the R*Tree
/// file format that SQLite documents in `ext/rtree/rtree.c` and keeps stable:
///
/// - `%_node(nodeno INTEGER PRIMARY KEY, data BLOB)`: node 1 is the root. A node blob starts with
///   a big-endian 16-bit tree depth (root only; leaves are depth 0) and a 16-bit cell count; each
///   cell is a big-endian 64-bit id (a rowid in leaves, a child node number above) and four
///   big-endian 32-bit floats (min x, max x, min y, max y). Every node has the root's size.
/// - `%_rowid(rowid INTEGER PRIMARY KEY, nodeno)`: the leaf holding each entry.
/// - `%_parent(nodeno INTEGER PRIMARY KEY, parentnode)`: the parent of every non-root node.
///
/// Tests check the result with SQLite's `rtreecheck()` and SpatiaLite's `CheckSpatialIndex()`.
struct RTreeBulkLoader {
    /// One entry: an id and its box, already rounded outwards to 32-bit floats.
    struct Entry {
        var id: Int64
        var minX: Float
        var maxX: Float
        var minY: Float
        var maxY: Float
        var curve: UInt32 = 0

        /// A point's entry, rounded so that the 32-bit box still contains it.
        init(id: Int64, x: Double, y: Double) {
            self.id = id
            minX = Self.roundedDown(x)
            maxX = Self.roundedUp(x)
            minY = Self.roundedDown(y)
            maxY = Self.roundedUp(y)
            curve = HilbertCurve.index(lat: y, lng: x)
        }

        init(id: Int64, minX: Float, maxX: Float, minY: Float, maxY: Float) {
            self.id = id
            self.minX = minX
            self.maxX = maxX
            self.minY = minY
            self.maxY = maxY
        }

        static func roundedDown(_ value: Double) -> Float {
            let single = Float(value)
            return Double(single) > value ? single.nextDown : single
        }

        static func roundedUp(_ value: Double) -> Float {
            let single = Float(value)
            return Double(single) < value ? single.nextUp : single
        }
    }

    let db: Database
    /// The R*Tree virtual table's name, for example `idx_places_geom`.
    let table: String

    /// Replaces the whole tree with `entries`. Entries in increasing id order (as a table scan
    /// gives them) make the `%_rowid` table an append.
    func rebuild(_ entries: [Entry]) throws {
        let quoted = { (suffix: String) in "\(table)_\(suffix)".quotedDatabaseIdentifier }
        guard let nodeSize = try Int.fetchOne(db, sql: "SELECT length(data) FROM \(quoted("node")) WHERE nodeno = 1"),
            nodeSize > 4 + 24 * 2
        else {
            throw StorageError.spatialiteCallFailed("R*Tree \(table) has no root node")
        }
        let capacity = min((nodeSize - 4) / 24, 51)
        try db.execute(
            sql: "DELETE FROM \(quoted("node")); DELETE FROM \(quoted("rowid")); DELETE FROM \(quoted("parent"))")

        let writeNode = try db.makeStatement(sql: "INSERT INTO \(quoted("node")) (nodeno, data) VALUES (?, ?)")
        let writeRowid = try db.makeStatement(sql: "INSERT INTO \(quoted("rowid")) (rowid, nodeno) VALUES (?, ?)")
        let writeParent = try db.makeStatement(
            sql: "INSERT INTO \(quoted("parent")) (nodeno, parentnode) VALUES (?, ?)")

        var leafOfEntry = [Int64](repeating: 0, count: entries.count)
        var level = entries
        var depth = 0
        var nextNode: Int64 = 2
        var parents: [(node: Int64, parent: Int64)] = []
        while true {
            let isRoot = level.count <= capacity
            var upper: [Entry] = []
            for group in isRoot ? [Array(level.indices)] : Self.tiles(level, capacity: capacity) {
                let cells = group.map { level[$0] }
                let node: Int64 = isRoot ? 1 : nextNode
                if !isRoot { nextNode += 1 }
                try execute(writeNode, node, Self.blob(cells[...], depth: isRoot ? depth : 0, size: nodeSize))
                if depth == 0 {
                    for index in group { leafOfEntry[index] = node }
                } else {
                    for cell in cells { parents.append((cell.id, node)) }
                }
                upper.append(
                    Entry(
                        id: node, minX: cells.map(\.minX).min() ?? 0, maxX: cells.map(\.maxX).max() ?? 0,
                        minY: cells.map(\.minY).min() ?? 0, maxY: cells.map(\.maxY).max() ?? 0))
            }
            if isRoot { break }
            level = upper
            depth += 1
        }
        for (entry, leaf) in zip(entries, leafOfEntry) { try execute(writeRowid, entry.id, leaf) }
        parents.sort { $0.node < $1.node }
        for row in parents { try execute(writeParent, row.node, row.parent) }
    }

    /// Sort-Tile-Recursive packing of one level: the boxes, by the x of their centres, cut into
    /// about √(nodes) vertical slabs; each slab, by the y of the centres, cut into nodes of at
    /// most `capacity`, spread evenly. The nodes come out nearly square and barely overlap, so a
    /// nearest search opens fewer of them than along a space-filling curve. Answers the indices
    /// of each node's boxes.
    static func tiles(_ boxes: [Entry], capacity: Int) -> [[Int]] {
        // Sorting plain integers (an order-keeping form of the coordinate above, the index
        // below) is several times faster than sorting the boxes.
        func sortKey(_ coordinate: Float, _ index: Int) -> UInt64 {
            let bits = coordinate.bitPattern
            let ordered = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
            return UInt64(ordered) << 32 | UInt64(index)
        }
        let nodeCount = (boxes.count + capacity - 1) / capacity
        let slabSize = Int(Double(nodeCount).squareRoot().rounded(.up)) * capacity
        var byX = boxes.indices.map { sortKey((boxes[$0].minX + boxes[$0].maxX) / 2, $0) }
        byX.sort()
        var groups: [[Int]] = []
        groups.reserveCapacity(nodeCount + slabSize / capacity)
        for slabStart in stride(from: 0, to: boxes.count, by: slabSize) {
            var byY = byX[slabStart..<min(boxes.count, slabStart + slabSize)].map { key in
                let index = Int(key & 0xFFFF_FFFF)
                return sortKey((boxes[index].minY + boxes[index].maxY) / 2, index)
            }
            byY.sort()
            let nodes = (byY.count + capacity - 1) / capacity
            var start = 0
            for node in 0..<nodes {
                let end = start + (byY.count - start) / (nodes - node)
                groups.append(byY[start..<end].map { Int($0 & 0xFFFF_FFFF) })
                start = end
            }
        }
        return groups
    }

    /// A node blob: depth, cell count, cells, zero padding to the node size.
    static func blob(_ cells: ArraySlice<Entry>, depth: Int, size: Int) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(size)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        append(UInt16(depth))
        append(UInt16(cells.count))
        for cell in cells {
            append(cell.id)
            for coordinate in [cell.minX, cell.maxX, cell.minY, cell.maxY] {
                append(coordinate.bitPattern)
            }
        }
        bytes.append(contentsOf: repeatElement(0, count: size - bytes.count))
        return bytes
    }

    private func execute(_ statement: Statement, _ first: Int64, _ second: Int64) throws {
        let handle = statement.sqliteStatement
        sqlite3_bind_int64(handle, 1, first)
        sqlite3_bind_int64(handle, 2, second)
        try step(statement)
    }

    private func execute(_ statement: Statement, _ node: Int64, _ blob: [UInt8]) throws {
        let handle = statement.sqliteStatement
        sqlite3_bind_int64(handle, 1, node)
        _ = blob.withUnsafeBytes { sqlite3_bind_blob(handle, 2, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
        try step(statement)
    }

    private func step(_ statement: Statement) throws {
        let code = sqlite3_step(statement.sqliteStatement)
        sqlite3_reset(statement.sqliteStatement)
        guard code == SQLITE_DONE else {
            throw db.rawError(code, sql: statement.sql)
        }
    }
}
