/// The places of an import batch or a place's write, as an event names them: their ids while
/// few, and always the box and the map cells they lie in (what a tile cache forgets).
public struct PlaceBatchFacts: Sendable {
    public private(set) var count = 0
    public private(set) var ids: [Int64] = []
    fileprivate var west = Double.infinity
    fileprivate var south = Double.infinity
    fileprivate var east = -Double.infinity
    fileprivate var north = -Double.infinity
    /// The cells of `cellLevel` the places lie in.
    public private(set) var cells: Set<Int64> = []
    public private(set) var cellLevel = PlaceBatchFacts.finestCellLevel

    /// The level of the cells an event names while few: the tiles of the finest zoom.
    public static let finestCellLevel = 20

    public init() {}

    /// Counts a place of the batch.
    public mutating func add(id: Int64, lat: Double, lng: Double) {
        count += 1
        if ids.count <= EventDetails.maximumPlaceIDs { ids.append(id) }
        widen(lat: lat, lng: lng)
    }

    /// Widens the box and the cells to a position without counting a place (a moved place's
    /// old position).
    public mutating func widen(lat: Double, lng: Double) {
        west = min(west, lng)
        east = max(east, lng)
        south = min(south, lat)
        north = max(north, lat)
        add(cell: PlaceCells.cell(of: PlaceCells.key(lat: lat, lng: lng), at: cellLevel), at: cellLevel)
    }

    /// Names a cell of `level` (at most `finestCellLevel`): the cells become coarser whenever
    /// they would outnumber `EventDetails.maximumCells`.
    public mutating func add(cell: Int64, at level: Int) {
        if level < cellLevel { coarsen(to: level) }
        cells.insert(cell >> Int64(2 * (level - cellLevel)))
        while cells.count > EventDetails.maximumCells { coarsen(to: cellLevel - 2) }
    }

    private mutating func coarsen(to level: Int) {
        let shift = Int64(2 * (cellLevel - level))
        cells = Set(cells.map { $0 >> shift })
        cellLevel = level
    }

    /// Widens the box and the cells to another batch's positions (not its count or ids).
    public mutating func widen(with other: PlaceBatchFacts) {
        guard other.count > 0 || !other.cells.isEmpty else { return }
        west = min(west, other.west)
        east = max(east, other.east)
        south = min(south, other.south)
        north = max(north, other.north)
        for cell in other.cells { add(cell: cell, at: other.cellLevel) }
    }

    /// The batch's event; `nil` when it changed nothing.
    public func event(_ kind: EventKind, source: String) -> DomainEvent? {
        guard count > 0 else { return nil }
        return DomainEvent(
            kind, actor: nil, subject: 0,
            details: EventDetails(
                source: source, count: count, bounds: bounds,
                places: ids.count <= EventDetails.maximumPlaceIDs ? ids : nil, cells: cells.sorted(),
                cellLevel: cellLevel))
    }
}

extension PlaceBatchFacts {
    /// `[west, south, east, north]`, or `nil` for no place.
    public var bounds: [Double]? {
        count > 0 ? [west, south, east, north] : nil
    }
}

extension DomainEvent {
    /// A place's event, with the box of its positions (before and after an edit): what a map
    /// cache must forget.
    public static func place(_ kind: EventKind, id: Int64, by actor: Int64?, at positions: [(lat: Double, lng: Double)])
        -> DomainEvent
    {
        var facts = PlaceBatchFacts()
        for position in positions { facts.add(id: id, lat: position.lat, lng: position.lng) }
        return DomainEvent(
            kind, actor: actor, subject: id,
            details: EventDetails(bounds: facts.bounds, cells: facts.cells.sorted(), cellLevel: facts.cellLevel))
    }
}

extension PlaceBatchFacts {
    /// The levels at which an engine that reads a batch's cells back from its table (PostgreSQL's
    /// import) asks for them, finest first: the distinct cells of the first level that has at
    /// most `cellReadCap` of them, given to `add(cell:at:)`, give the same cells and level as the
    /// batch built place by place (SQLite's import). Four levels apart because a level with more
    /// than `cellReadCap` (16 × `EventDetails.maximumCells`) cells has more than
    /// `EventDetails.maximumCells` at the next level of the ladder (a cell holds 16 of the level
    /// two finer), so the answer is at least four levels coarser: no level is skipped.
    public static let cellReadLevels = Array(stride(from: finestCellLevel, through: 0, by: -4))

    /// The most distinct cells read at one of `cellReadLevels`.
    public static let cellReadCap = 16 * EventDetails.maximumCells
}
