/// Builds a clustered view from `place_cells` and the places' cell index, the same way on every
/// engine: the engine answers what `need` asks until it is `nil`, then takes `result`.
///
/// A cell of the view that the box holds whole is its row (one read for the level); a cell
/// without a row has fewer than `PlaceCells.threshold` places, read from the index. A cell that
/// the box's edge cuts is split into its four children, level by level (or read place by place
/// when it holds few: `readWholeUpTo`), so that only the thin band of cells along the edge is
/// read place by place: the counts stay exact at any zoom while the work stays near the number
/// of cells on screen.
public struct ClusterBuilder: Sendable {
    /// What the engine must read next.
    public enum Need: Sendable, Equatable {
        /// The `place_cells` rows of these cells of one level (sorted; missing rows are left
        /// out, and rows of other cells may come too: they are ignored).
        case rows(level: Int, cells: [Int64])
        /// The places whose keys fall in these ranges (only the reviewed ones when asked).
        case members(ranges: [ClosedRange<Int64>], reviewedOnly: Bool)
        /// These places, for the cells that hold one place alone.
        case places(ids: [Int64])
    }

    /// A cell that the box's edge cuts and whose row holds at most this many places is read
    /// place by place rather than split: its four children would hold at most two rows, and
    /// looking them up costs more than testing its places against the box. On 1,000,000
    /// places (`scripts/bench-clusters --engines`, alternating runs) a city view took 5.3–5.4 ms
    /// on PostgreSQL with 32 against 5.8–6.1 ms splitting every cut cell (64: 5.6, 128: 5.5),
    /// SQLite 2.0–2.1 against 2.1–2.2 ms.
    package static let readWholeUpTo = 2 * PlaceCells.threshold

    public let query: ClusterQuery
    public let level: Int
    private let spans: [ClosedRange<Double>]
    public private(set) var need: Need?

    /// A view cell's tally so far.
    /// No arrays: a view keeps hundreds of these, and copying arrays in and out of the
    /// dictionary was a tenth of a dense city view's time in a profile.
    private struct Tally {
        var summary = CellSummary.empty
        /// The last place read one by one (only a cell with one place needs its id).
        var lastID: Int64?
        /// The last row counted whole that held exactly one place: a cell with one place in all
        /// has it there when no place was read one by one.
        var singleRow: CellID?
    }

    private var tallies: [Int64: Tally] = [:]
    /// The cells whose rows were asked for (one level, by key), with whether the box holds
    /// them whole.
    private var asked: [(id: CellID, cover: ClusterQuery.Cover)] = []
    private var split: [CellID] = []
    private var singles: [Int64: Int64] = [:]
    private var places: [Int64: Place] = [:]
    private var lookingUpSingles = false

    public init(_ query: ClusterQuery) {
        self.query = query
        level = query.level
        spans = query.longitudeSpans
        var cells: [CellID] = []
        for row in query.rows(at: level) {
            for column in query.columns(at: level) {
                cells.append(CellID(level: level, cell: PlaceCells.interleave(column: column, row: row)))
            }
        }
        ask(cells)
    }

    private mutating func ask(_ cells: [CellID]) {
        asked = []
        for id in cells {
            let cover = query.cover(id, spans: spans)
            if cover != .outside { asked.append((id, cover)) }
        }
        guard let first = asked.first else { return lookUpSingles() }
        asked.sort { $0.id.cell < $1.id.cell }
        need = .rows(level: first.id.level, cells: asked.map(\.id.cell))
    }

    /// The view cell that a cell of any level lies in.
    private func viewCell(_ id: CellID) -> Int64 { id.cell >> Int64(2 * (id.level - level)) }

    /// Step: the rows asked for.
    public mutating func receive(rows: [CellRow]) {
        // One level: rows by cell (rows of cells not asked for may come too).
        let stored = Dictionary(rows.map { ($0.cell, $0) }) { first, _ in first }
        var ranges: [ClosedRange<Int64>] = []
        split = []
        for (id, cover) in asked {
            guard let row = stored[id.cell] else {
                ranges.append(id.range)
                continue
            }
            if cover == .inside {
                let summary = row.summary(reviewedOnly: query.reviewedOnly)
                guard summary.count > 0 else { continue }
                let cell = viewCell(id)
                tallies[cell, default: Tally()].summary.merge(summary)
                if summary.count == 1 { tallies[cell]!.singleRow = id }
            } else if id.level < PlaceCells.maxLevel && row.all.count > Self.readWholeUpTo {
                split += id.children
            } else {
                ranges.append(id.range)
            }
        }
        if ranges.isEmpty {
            continueDown()
        } else {
            need = .members(ranges: PlaceCells.joined(ranges), reviewedOnly: query.reviewedOnly)
        }
    }

    /// Step: the places asked for.
    public mutating func receive(members: [CellMember]) {
        if lookingUpSingles {
            for member in members where query.contains(lat: member.lat, lng: member.lng, spans: spans) {
                let cell = PlaceCells.cell(of: member.key, at: level)
                if tallies[cell]?.summary.count == 1 { singles[cell] = member.id }
            }
            return askForPlaces()
        }
        for member in members where query.contains(lat: member.lat, lng: member.lng, spans: spans) {
            guard !query.reviewedOnly || member.reviewed else { continue }
            let cell = PlaceCells.cell(of: member.key, at: level)
            tallies[cell, default: Tally()].summary.add(lat: member.lat, lng: member.lng)
            tallies[cell]!.lastID = member.id
        }
        continueDown()
    }

    private mutating func continueDown() {
        if split.isEmpty {
            lookUpSingles()
        } else {
            let cells = split
            split = []
            ask(cells)
        }
    }

    /// Cells with one place alone show that place; when it was counted inside a row, the row's
    /// range is read for its id (through the reviewed-places index when only reviewed count).
    private mutating func lookUpSingles() {
        var ranges: [ClosedRange<Int64>] = []
        for (cell, tally) in tallies where tally.summary.count == 1 {
            if let id = tally.lastID {
                singles[cell] = id
            } else if let row = tally.singleRow {
                ranges.append(row.range)
            }
        }
        if ranges.isEmpty {
            askForPlaces()
        } else {
            lookingUpSingles = true
            need = .members(ranges: ranges, reviewedOnly: query.reviewedOnly)
        }
    }

    private mutating func askForPlaces() {
        need = singles.isEmpty ? nil : .places(ids: singles.values.sorted())
    }

    /// Step: the single places.
    public mutating func receive(places found: [Place]) {
        for place in found { places[place.id] = place }
        need = nil
    }

    /// The view, once `need` is `nil`.
    public var result: ClusterResult {
        let columns = query.columns(at: level)
        func order(_ cell: Int64) -> (Int64, Int) {
            let (column, row) = PlaceCells.split(cell)
            return (row, columns.firstIndex(of: column) ?? 0)
        }
        var items: [ClusterItem] = []
        var count = 0
        let cells = tallies.keys.map { (order: order($0), cell: $0) }.sorted { $0.order < $1.order }.map(\.cell)
        for cell in cells {
            let tally = tallies[cell]!
            guard tally.summary.count > 0 else { continue }
            count += tally.summary.count
            if tally.summary.count == 1, let id = singles[cell], let place = places[id] {
                items.append(.place(place))
            } else {
                items.append(
                    .cluster(
                        PlaceCluster(
                            cell: cell, summary: tally.summary,
                            expansionZoom: PlaceCluster.expansionZoom(of: tally.summary, after: query.zoom))))
            }
        }
        return ClusterResult(zoom: query.zoom, level: level, count: count, items: items)
    }
}
