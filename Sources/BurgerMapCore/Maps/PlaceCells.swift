import Foundation

/// The grid that map clusters are cut from: the Web Mercator quadtree of 256-pixel map tiles.
///
/// Every place stores `cell`, its key at level 30 (cells of about 4 cm): the Morton (Z-order)
/// interleaving of its column and row, so that the places of any coarser cell are one range of
/// keys (`range(of:)`), found by one B-tree range on either engine. The key is computed here,
/// in Swift, for every engine, so that both put a place in the same cell.
public enum PlaceCells {
    /// The level of the stored keys.
    public static let keyLevel = 30
    /// The coarsest and finest levels that keep counts in `place_cells`. Zoom `z` clusters on
    /// level `z + 2` (cells of 64 × 64 screen pixels), so zoom 0…20 uses levels 2…22; two more
    /// levels serve the cells that a viewport's edge cuts.
    public static let minLevel = 2
    public static let maxLevel = 24
    /// A cell keeps a row of counts once it holds this many places; a cell with fewer is
    /// counted from its places (at most `threshold - 1` index entries). Rows exist exactly for
    /// the cells with at least this many places, so their number stays below
    /// `places × levels / threshold` however the places spread.
    public static let threshold = 16

    /// The Web Mercator latitude limit: places nearer the poles count in the top or bottom row.
    package static let mercatorLimit = 85.051_128_779_806_59

    /// The column of a longitude at the key level (180 falls in the last column).
    package static func column(lng: Double) -> Int64 {
        let side = Double(Int64(1) << keyLevel)
        return min(max(Int64(((lng + 180) / 360 * side).rounded(.down)), 0), (Int64(1) << keyLevel) - 1)
    }

    /// The row of a latitude at the key level (row 0 at the top).
    package static func row(lat: Double) -> Int64 {
        let phi = min(max(lat, -mercatorLimit), mercatorLimit) * .pi / 180
        let y = 0.5 - log(tan(.pi / 4 + phi / 2)) / (2 * .pi)
        let side = Double(Int64(1) << keyLevel)
        return min(max(Int64((y * side).rounded(.down)), 0), (Int64(1) << keyLevel) - 1)
    }

    /// The stored key of a position.
    public static func key(lat: Double, lng: Double) -> Int64 {
        interleave(column: column(lng: lng), row: row(lat: lat))
    }

    /// The cell at `level` that holds `key`.
    public static func cell(of key: Int64, at level: Int) -> Int64 {
        key >> Int64(2 * (keyLevel - level))
    }

    /// The keys of the places inside a cell.
    public static func range(of cell: Int64, at level: Int) -> ClosedRange<Int64> {
        let shift = Int64(2 * (keyLevel - level))
        return (cell << shift)...(((cell + 1) << shift) - 1)
    }

    /// Sorted keys grouped into ranges to scan: keys at most `gap` apart share a range. A view's
    /// cells form a rectangle, which Z-order keeps in a few runs of nearby keys: a few range
    /// scans that skip a few unwanted rows cost less than hundreds of lookups (the reader
    /// keeps only the wanted ones).
    public static func runs(_ sortedKeys: [Int64], gap: Int64 = 64) -> [ClosedRange<Int64>] {
        var runs: [ClosedRange<Int64>] = []
        for key in sortedKeys {
            if let last = runs.last, key - last.upperBound <= gap {
                runs[runs.count - 1] = last.lowerBound...key
            } else {
                runs.append(key...key)
            }
        }
        return runs
    }

    /// Key ranges with the adjacent ones joined (the places of four sibling cells are one range).
    package static func joined(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var joined: [ClosedRange<Int64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = joined.last, range.lowerBound <= last.upperBound + 1 {
                joined[joined.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                joined.append(range)
            }
        }
        return joined
    }

    /// The cell of a column and a row.
    package static func interleave(column: Int64, row: Int64) -> Int64 {
        spread(column) << 1 | spread(row)
    }

    /// The column and row of a cell.
    package static func split(_ cell: Int64) -> (column: Int64, row: Int64) {
        (gather(cell >> 1), gather(cell))
    }

    /// Puts a zero bit between the bits of a 31-bit number.
    private static func spread(_ value: Int64) -> Int64 {
        var v = UInt64(value) & 0x7FFF_FFFF
        v = (v | v << 16) & 0x0000_FFFF_0000_FFFF
        v = (v | v << 8) & 0x00FF_00FF_00FF_00FF
        v = (v | v << 4) & 0x0F0F_0F0F_0F0F_0F0F
        v = (v | v << 2) & 0x3333_3333_3333_3333
        v = (v | v << 1) & 0x5555_5555_5555_5555
        return Int64(v)
    }

    /// Takes every other bit, from the lowest.
    private static func gather(_ value: Int64) -> Int64 {
        var v = UInt64(value) & 0x5555_5555_5555_5555
        v = (v | v >> 1) & 0x3333_3333_3333_3333
        v = (v | v >> 2) & 0x0F0F_0F0F_0F0F_0F0F
        v = (v | v >> 4) & 0x00FF_00FF_00FF_00FF
        v = (v | v >> 8) & 0x0000_FFFF_0000_FFFF
        v = (v | v >> 16) & 0x0000_0000_FFFF_FFFF
        return Int64(v)
    }

    /// The latitude of the top edge of `row` at `level`.
    package static func latitude(ofRowEdge row: Int64, at level: Int) -> Double {
        let y = Double(row) / Double(Int64(1) << level)
        return atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi
    }

    /// The longitude of the west edge of `column` at `level`.
    package static func longitude(ofColumnEdge column: Int64, at level: Int) -> Double {
        Double(column) / Double(Int64(1) << level) * 360 - 180
    }
}

/// The extent of a cell in degrees, for telling whether a viewport holds it whole, cuts it or
/// misses it. An interior edge is widened by `slack`: a stored key is computed from the place's
/// own degrees and the edge from the cell's number, and the two roundings may differ in the
/// last bits, so a place may lie a hair outside its cell's computed edge. The world's own edges
/// (±180, ±90) are exact.
package struct CellExtent {
    package var west: Double
    package var east: Double
    package var south: Double
    package var north: Double

    package static let slack = 1e-9

    package init(cell: Int64, level: Int) {
        let (column, row) = PlaceCells.split(cell)
        let last = (Int64(1) << level) - 1
        west = column == 0 ? -180 : PlaceCells.longitude(ofColumnEdge: column, at: level) - Self.slack
        east = column == last ? 180 : PlaceCells.longitude(ofColumnEdge: column + 1, at: level) + Self.slack
        north = row == 0 ? 90 : PlaceCells.latitude(ofRowEdge: row, at: level) + Self.slack
        south = row == last ? -90 : PlaceCells.latitude(ofRowEdge: row + 1, at: level) - Self.slack
    }
}
