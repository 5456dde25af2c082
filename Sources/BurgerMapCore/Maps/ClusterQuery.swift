/// A clustered map view (`GET /v1/places/clusters`): the places inside a box, grouped into the
/// Web Mercator cells of a zoom level.
public struct ClusterQuery: Sendable, Hashable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double
    /// The map's zoom, 0…20 (256-pixel tiles).
    public var zoom: Int
    /// Only places with at least one review.
    public var reviewedOnly: Bool

    public static let zooms = 0...20
    /// At most this many columns and rows of cells: a box too big for its zoom is clustered on
    /// coarser cells, so that an answer holds at most 22 × 22 items whatever is asked.
    package static let maxSpan = 22

    public init(west: Double, south: Double, east: Double, north: Double, zoom: Int, reviewedOnly: Bool = false) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
        self.zoom = zoom
        self.reviewedOnly = reviewedOnly
    }

    /// The box as one or two longitude spans that do not wrap (`west > east` crosses the
    /// antimeridian, as in the viewport route).
    public var longitudeSpans: [ClosedRange<Double>] {
        west > east ? [west...180, -180...east] : [west...east]
    }

    /// Whether a place is inside the box: the viewport route's rule (`spans`: the box's
    /// `longitudeSpans`, which a view computes once for its thousands of places).
    package func contains(lat: Double, lng: Double, spans: [ClosedRange<Double>]) -> Bool {
        lat >= south && lat <= north && (spans[0].contains(lng) || (spans.count > 1 && spans[1].contains(lng)))
    }

    /// How a cell lies against the box.
    package enum Cover { case inside, cut, outside }

    package func cover(_ id: CellID, spans longitudeSpans: [ClosedRange<Double>]) -> Cover {
        let extent = CellExtent(cell: id.cell, level: id.level)
        if extent.north < south || extent.south > north { return .outside }
        let latInside = extent.south >= south && extent.north <= north
        var cut = false
        for span in longitudeSpans where extent.east >= span.lowerBound && extent.west <= span.upperBound {
            if latInside && extent.west >= span.lowerBound && extent.east <= span.upperBound { return .inside }
            cut = true
        }
        return cut ? .cut : .outside
    }

    /// The columns of `level` that the box touches, as ranges from its west edge eastwards
    /// (two across the antimeridian, which may share a column).
    package func columnRanges(at level: Int) -> [ClosedRange<Int64>] {
        let shift = Int64(PlaceCells.keyLevel - level)
        return longitudeSpans.map { span in
            (PlaceCells.column(lng: span.lowerBound - CellExtent.slack) >> shift)...(PlaceCells.column(
                lng: span.upperBound + CellExtent.slack) >> shift)
        }
    }

    /// How many columns of `level` the box touches, counted without listing them (a box across
    /// the world at zoom 20 touches millions).
    package func columnCount(at level: Int) -> Int64 {
        let ranges = columnRanges(at: level)
        var count = ranges.reduce(0) { $0 + Int64($1.count) }
        if ranges.count == 2, ranges[0].overlaps(ranges[1]) {
            count -= Int64(ranges[0].clamped(to: ranges[1]).count)
        }
        return count
    }

    /// The columns of `level` that the box touches, from its west edge eastwards (only for a
    /// level whose `columnCount` is small).
    package func columns(at level: Int) -> [Int64] {
        var columns: [Int64] = []
        var seen = Set<Int64>()
        for range in columnRanges(at: level) {
            for column in range where seen.insert(column).inserted { columns.append(column) }
        }
        return columns
    }

    /// The rows of `level` that the box touches, from the north.
    package func rows(at level: Int) -> ClosedRange<Int64> {
        let shift = Int64(PlaceCells.keyLevel - level)
        return
            (PlaceCells.row(lat: north + CellExtent.slack) >> shift)...(PlaceCells.row(lat: south - CellExtent.slack)
            >> shift)
    }

    /// The level the clusters are cut on: `zoom + 2` (cells of 64 × 64 screen pixels), or
    /// coarser when the box spans more than `maxSpan` cells of it.
    package var level: Int {
        var level = zoom + 2
        while level > PlaceCells.minLevel,
            columnCount(at: level) > Self.maxSpan || rows(at: level).count > Self.maxSpan
        {
            level -= 1
        }
        return level
    }
}

/// One item of a clustered view: a place alone in its cell, or a cluster of several.
public enum ClusterItem: Sendable {
    case place(Place)
    case cluster(PlaceCluster)
}

/// Several places of one cell inside the box.
public struct PlaceCluster: Sendable, Equatable {
    /// The cell (at the view's level).
    public var cell: Int64
    /// How many places, their mean position and their bounds.
    public var summary: CellSummary
    /// The first zoom at which these places fall into more than one 64-pixel cell, or `nil`
    /// when they never do up to zoom 20 (places at the same point).
    public var expansionZoom: Int?

    public var lat: Double { summary.sumLat / Double(summary.count) }
    public var lng: Double { summary.sumLng / Double(summary.count) }

    /// The zoom after `zoom` at which the places split: the corners of their bounds lie in
    /// different cells exactly when some two places do (cells are axis-aligned boxes).
    package static func expansionZoom(of summary: CellSummary, after zoom: Int) -> Int? {
        let west = PlaceCells.column(lng: summary.minLng)
        let east = PlaceCells.column(lng: summary.maxLng)
        let north = PlaceCells.row(lat: summary.maxLat)
        let south = PlaceCells.row(lat: summary.minLat)
        guard zoom < ClusterQuery.zooms.upperBound else { return nil }
        for next in (zoom + 1)...ClusterQuery.zooms.upperBound {
            let shift = Int64(PlaceCells.keyLevel - (next + 2))
            if west >> shift != east >> shift || north >> shift != south >> shift { return next }
        }
        return nil
    }
}

/// A clustered view: its items and the number of places inside the box.
public struct ClusterResult: Sendable {
    public var zoom: Int
    /// The level of the cells (`zoom + 2` unless the box is too big for its zoom).
    public var level: Int
    /// Every place inside the box, counted exactly: the clusters' counts plus the single places.
    public var count: Int
    /// North to south, then west to east.
    public var items: [ClusterItem]
}
