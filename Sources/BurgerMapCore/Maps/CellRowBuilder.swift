/// Builds every row of `place_cells` in one pass over the places in key order (the order of
/// the engines' cell index), for a first load, a large import or a removed source: a cell's
/// places are consecutive in that order at every level, so each level keeps one open cell.
///
/// The open cells live in arrays indexed by level and change in place: kept as an array of
/// optional rows, each row was copied out and back for every level of every place (23 per
/// place), which was 8% of a 1,000,000-row import in a profile (`perf`, `scripts/bench-import`).
public struct CellRowBuilder {
    /// Per level, the open cell (-1: none) and the summaries of its places.
    private var openCells: [Int64]
    private var openAll: [CellSummary]
    private var openReviewed: [CellSummary]
    /// The rows of cells with at least `PlaceCells.threshold` places, in the order they closed.
    public private(set) var rows: [CellRow] = []

    public init() {
        openCells = Array(repeating: -1, count: PlaceCells.maxLevel + 1)
        openAll = Array(repeating: .empty, count: PlaceCells.maxLevel + 1)
        openReviewed = Array(repeating: .empty, count: PlaceCells.maxLevel + 1)
    }

    /// Adds the next place; keys must not decrease.
    public mutating func add(key: Int64, lat: Double, lng: Double, reviewed: Bool) {
        for level in PlaceCells.minLevel...PlaceCells.maxLevel {
            let cell = PlaceCells.cell(of: key, at: level)
            if openCells[level] != cell {
                close(level)
                openCells[level] = cell
            }
            openAll[level].add(lat: lat, lng: lng)
            if reviewed { openReviewed[level].add(lat: lat, lng: lng) }
        }
    }

    /// Closes the cells still open; `rows` is then complete.
    public mutating func finish() {
        for level in (PlaceCells.minLevel...PlaceCells.maxLevel).reversed() {
            close(level)
            openCells[level] = -1
        }
    }

    /// Keeps the open cell of a level as a row when it holds enough places, and empties it.
    private mutating func close(_ level: Int) {
        if openCells[level] >= 0, openAll[level].count >= PlaceCells.threshold {
            rows.append(
                CellRow(level: level, cell: openCells[level], all: openAll[level], reviewed: openReviewed[level]))
        }
        openAll[level] = .empty
        openReviewed[level] = .empty
    }
}
