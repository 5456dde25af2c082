/// What an engine's cell reads answer to: `ClusterBuilder` and `TileBuilder` say what to read
/// next through `need`, and the engine answers until it is `nil`. One loop per engine serves
/// both.
public protocol CellReadingBuilder {
    var need: ClusterBuilder.Need? { get }
    /// The box that places read by key range must also lie in; `nil` for whole ranges.
    var membersBox: ClusterQuery? { get }
    /// Whether only reviewed places count (an engine may then read only their summaries).
    var reviewedOnly: Bool { get }
    mutating func receive(rows: [CellRow])
    mutating func receive(members: [CellMember])
    mutating func receive(places: [Place])
}

extension ClusterBuilder: CellReadingBuilder {
    public var membersBox: ClusterQuery? { query }
    public var reviewedOnly: Bool { query.reviewedOnly }
}

/// What a vector tile shows: its clusters and its places shown alone, in cell order.
public struct TileContent: Sendable {
    public var query: TileQuery
    /// Cells of the tile with two places or more.
    public var clusters: [PlaceCluster]
    /// Places alone in their cell.
    public var places: [Place]

    /// Every place of the tile: the clusters' counts plus the single places.
    public var count: Int { clusters.reduce(places.count) { $0 + $1.summary.count } }
}

/// Builds a tile from `place_cells` and the places' cell index, the same way on every engine.
///
/// A tile is one cell of level `z`; its clusters are its 16 cells of level `z + 2`, the cells
/// the cluster route cuts at zoom `z`. The tile holds each of them whole, so unlike a viewport
/// no cell is cut by an edge: a cell with a row is counted from the row, a cell without one
/// (fewer than `PlaceCells.threshold` places) from its places. At most 16 rows and 16 × 15
/// index entries are read whatever the zoom, which keeps an uncached tile within a few
/// milliseconds on 1,000,000 places.
public struct TileBuilder: CellReadingBuilder, Sendable {
    public let query: TileQuery
    public private(set) var need: ClusterBuilder.Need?
    public var membersBox: ClusterQuery? { nil }
    public var reviewedOnly: Bool { query.reviewedOnly }

    /// The tile's cells at the cluster level, ascending.
    private let cells: [Int64]
    private var summaries: [Int64: CellSummary] = [:]
    /// Cells counted from their row.
    private var counted: Set<Int64> = []
    /// The last place read one by one in each cell (a cell with one place needs its id).
    private var lastIDs: [Int64: Int64] = [:]
    private var singles: [Int64: Int64] = [:]
    private var places: [Int64: Place] = [:]

    public init(_ query: TileQuery) {
        self.query = query
        let first = query.address.cell.cell << 4
        cells = (0..<16).map { first | Int64($0) }
        need = .rows(level: query.level, cells: cells)
    }

    /// Step: the rows of the tile's cells (rows of other cells are ignored).
    public mutating func receive(rows: [CellRow]) {
        let wanted = Set(cells)
        var ranges: [ClosedRange<Int64>] = []
        for row in rows where row.level == query.level && wanted.contains(row.cell) && !counted.contains(row.cell) {
            counted.insert(row.cell)
            let summary = row.summary(reviewedOnly: query.reviewedOnly)
            guard summary.count > 0 else { continue }
            summaries[row.cell] = summary
            // One place in a counted cell: read its range for the id.
            if summary.count == 1 { ranges.append(PlaceCells.range(of: row.cell, at: query.level)) }
        }
        for cell in cells where !counted.contains(cell) {
            ranges.append(PlaceCells.range(of: cell, at: query.level))
        }
        if ranges.isEmpty {
            askForPlaces()
        } else {
            need = .members(ranges: PlaceCells.joined(ranges), reviewedOnly: query.reviewedOnly)
        }
    }

    /// Step: the places of the cells without a row, and of the counted cells with one place.
    public mutating func receive(members: [CellMember]) {
        for member in members where !query.reviewedOnly || member.reviewed {
            let cell = PlaceCells.cell(of: member.key, at: query.level)
            guard cell >> 4 == query.address.cell.cell else { continue }
            if counted.contains(cell) {
                if summaries[cell]?.count == 1 { singles[cell] = member.id }
            } else {
                summaries[cell, default: .empty].add(lat: member.lat, lng: member.lng)
                lastIDs[cell] = member.id
            }
        }
        for (cell, id) in lastIDs where summaries[cell]?.count == 1 { singles[cell] = id }
        askForPlaces()
    }

    private mutating func askForPlaces() {
        need = singles.isEmpty ? nil : .places(ids: singles.values.sorted())
    }

    /// Step: the places shown alone.
    public mutating func receive(places found: [Place]) {
        for place in found { places[place.id] = place }
        need = nil
    }

    /// The tile, once `need` is `nil`.
    public var result: TileContent {
        var clusters: [PlaceCluster] = []
        var alone: [Place] = []
        for cell in cells {
            guard let summary = summaries[cell], summary.count > 0 else { continue }
            if summary.count == 1, let id = singles[cell], let place = places[id] {
                alone.append(place)
            } else {
                clusters.append(
                    PlaceCluster(
                        cell: cell, summary: summary,
                        expansionZoom: PlaceCluster.expansionZoom(of: summary, after: query.address.z)))
            }
        }
        return TileContent(query: query, clusters: clusters, places: alone)
    }
}
