import Foundation

/// A map tile of the XYZ scheme (`/tiles/{z}/{x}/{y}.mvt`): column `x` from the antimeridian
/// eastwards and row `y` from the north, Web Mercator, zoom 0…20.
///
/// A tile is exactly the `PlaceCells` cell `(x, y)` at level `z`: its places are one range of
/// the stored keys. So its bounds are half-open by construction (a place on an edge belongs to
/// the tile east or south of it, as its key says), a place beyond ±85.0511° counts in the edge
/// row (its key is clamped there), and every place lies in exactly one tile of each zoom.
public struct TileAddress: Sendable, Hashable, CustomStringConvertible {
    public let z: Int
    public let x: Int64
    public let y: Int64

    /// The zooms served: those of the cluster route.
    public static let zooms = ClusterQuery.zooms
    /// The width of a tile in MVT units.
    public static let extent = 4096

    /// `nil` when the zoom is outside `zooms` or a column or row outside `0 ..< 2^z`.
    public init?(z: Int, x: Int64, y: Int64) {
        guard Self.zooms.contains(z) else { return nil }
        let side = Int64(1) << z
        guard (0..<side).contains(x), (0..<side).contains(y) else { return nil }
        self.z = z
        self.x = x
        self.y = y
    }

    public var description: String { "\(z)/\(x)/\(y)" }

    /// The tile as a cell of level `z`.
    public var cell: CellID { CellID(level: z, cell: PlaceCells.interleave(column: x, row: y)) }

    /// The tile of zoom `z` that holds a stored key.
    public static func holding(key: Int64, at z: Int) -> TileAddress {
        let (column, row) = PlaceCells.split(PlaceCells.cell(of: key, at: z))
        return TileAddress(z: z, x: column, y: row)!
    }

    /// A position in the tile's coordinates (0…4096 across, from the north-west corner),
    /// rounded to whole units: where Web Mercator puts it.
    public func point(lat: Double, lng: Double) -> (x: Int, y: Int) {
        let scale = Double(Int64(1) << z) * Double(Self.extent)
        let phi = min(max(lat, -PlaceCells.mercatorLimit), PlaceCells.mercatorLimit) * .pi / 180
        let worldX = (lng + 180) / 360 * scale
        let worldY = (0.5 - log(tan(.pi / 4 + phi / 2)) / (2 * .pi)) * scale
        let originX = Double(x) * Double(Self.extent)
        let originY = Double(y) * Double(Self.extent)
        return (Int((worldX - originX).rounded()), Int((worldY - originY).rounded()))
    }

    /// `[west, south, east, north]` in degrees.
    public var bounds: [Double] {
        [
            PlaceCells.longitude(ofColumnEdge: x, at: z), PlaceCells.latitude(ofRowEdge: y + 1, at: z),
            PlaceCells.longitude(ofColumnEdge: x + 1, at: z), PlaceCells.latitude(ofRowEdge: y, at: z),
        ]
    }
}

/// A vector tile as asked for: its address and whether only reviewed places count.
public struct TileQuery: Sendable, Hashable {
    public var address: TileAddress
    public var reviewedOnly: Bool

    public init(_ address: TileAddress, reviewedOnly: Bool = false) {
        self.address = address
        self.reviewedOnly = reviewedOnly
    }

    /// The level of the cells a tile clusters on: the cluster route's `zoom + 2` (cells of
    /// 64 × 64 pixels of a 256-pixel tile), so a tile of zoom `z` shows what the cluster route
    /// shows at zoom `z` for the same ground.
    public var level: Int { address.z + 2 }
}
