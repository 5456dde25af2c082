/// Builds every row of `place_cells` in one pass over the places in key order (the order of
/// the engines' cell index), for a first load, a large import or a removed source: a cell's
/// places are consecutive in that order at every level, so each level keeps one open cell.
public struct CellRowBuilder {
    private var open: [CellRow?]
    /// The rows of cells with at least `PlaceCells.threshold` places, finest cells first.
    public private(set) var rows: [CellRow] = []

    public init() {
        open = Array(repeating: nil, count: PlaceCells.maxLevel + 1)
    }

    /// Adds the next place; keys must not decrease.
    public mutating func add(key: Int64, lat: Double, lng: Double, reviewed: Bool) {
        for level in PlaceCells.minLevel...PlaceCells.maxLevel {
            let cell = PlaceCells.cell(of: key, at: level)
            if let row = open[level], row.cell != cell {
                close(row)
                open[level] = nil
            }
            if open[level] == nil {
                open[level] = CellRow(level: level, cell: cell, all: .empty, reviewed: .empty)
            }
            open[level]!.all.add(lat: lat, lng: lng)
            if reviewed { open[level]!.reviewed.add(lat: lat, lng: lng) }
        }
    }

    /// Closes the cells still open; `rows` is then complete.
    public mutating func finish() {
        for level in (PlaceCells.minLevel...PlaceCells.maxLevel).reversed() {
            if let row = open[level] { close(row) }
            open[level] = nil
        }
    }

    private mutating func close(_ row: CellRow) {
        if row.all.count >= PlaceCells.threshold { rows.append(row) }
    }
}
