/// What a cluster says about its places: how many, their mean position and their bounds.
/// Summaries of disjoint sets merge into the summary of their union.
public struct CellSummary: Sendable, Equatable {
    public var count: Int
    public var sumLat: Double
    public var sumLng: Double
    public var minLat: Double
    public var maxLat: Double
    public var minLng: Double
    public var maxLng: Double

    public init(
        count: Int, sumLat: Double, sumLng: Double, minLat: Double, maxLat: Double, minLng: Double, maxLng: Double
    ) {
        self.count = count
        self.sumLat = sumLat
        self.sumLng = sumLng
        self.minLat = minLat
        self.maxLat = maxLat
        self.minLng = minLng
        self.maxLng = maxLng
    }

    /// No places (bounds that any place widens).
    public static let empty = CellSummary(
        count: 0, sumLat: 0, sumLng: 0, minLat: .infinity, maxLat: -.infinity, minLng: .infinity, maxLng: -.infinity)

    /// Counts one more place.
    public mutating func add(lat: Double, lng: Double) {
        count += 1
        sumLat += lat
        sumLng += lng
        minLat = Swift.min(minLat, lat)
        maxLat = Swift.max(maxLat, lat)
        minLng = Swift.min(minLng, lng)
        maxLng = Swift.max(maxLng, lng)
    }

    /// Adds the places of another summary (disjoint from these).
    public mutating func merge(_ other: CellSummary) {
        guard other.count > 0 else { return }
        count += other.count
        sumLat += other.sumLat
        sumLng += other.sumLng
        minLat = Swift.min(minLat, other.minLat)
        maxLat = Swift.max(maxLat, other.maxLat)
        minLng = Swift.min(minLng, other.minLng)
        maxLng = Swift.max(maxLng, other.maxLng)
    }

    /// Takes one place out. The bounds stay as they were: `touchesBounds` says when they must
    /// be recomputed.
    package mutating func remove(lat: Double, lng: Double) {
        count -= 1
        sumLat -= lat
        sumLng -= lng
        if count == 0 { self = .empty }
    }

    /// Whether a position lies on these bounds (taking it out may shrink them).
    package func touchesBounds(lat: Double, lng: Double) -> Bool {
        lat <= minLat || lat >= maxLat || lng <= minLng || lng >= maxLng
    }
}

/// One place as the cluster queries see it.
public struct CellMember: Sendable, Equatable {
    public var id: Int64
    public var key: Int64
    public var lat: Double
    public var lng: Double
    public var reviewed: Bool

    public init(id: Int64, key: Int64, lat: Double, lng: Double, reviewed: Bool) {
        self.id = id
        self.key = key
        self.lat = lat
        self.lng = lng
        self.reviewed = reviewed
    }

    /// A stored place as the rows count it (its key is the one every writer stores).
    public init(_ place: Place) {
        self.init(
            id: place.id, key: PlaceCells.key(lat: place.lat, lng: place.lng), lat: place.lat, lng: place.lng,
            reviewed: place.reviewCount > 0)
    }
}

/// A cell of `place_cells`: one level's cell and the summaries of all its places and of its
/// reviewed places.
public struct CellRow: Sendable, Equatable {
    public var level: Int
    public var cell: Int64
    public var all: CellSummary
    public var reviewed: CellSummary

    public init(level: Int, cell: Int64, all: CellSummary, reviewed: CellSummary) {
        self.level = level
        self.cell = cell
        self.all = all
        self.reviewed = reviewed
    }

    /// The summary a query counts.
    package func summary(reviewedOnly: Bool) -> CellSummary { reviewedOnly ? reviewed : all }
}

/// A cell of a level: the key of `place_cells`.
public struct CellID: Sendable, Hashable {
    public var level: Int
    public var cell: Int64

    public init(level: Int, cell: Int64) {
        self.level = level
        self.cell = cell
    }

    /// The keys of its places.
    public var range: ClosedRange<Int64> { PlaceCells.range(of: cell, at: level) }

    /// Its four cells one level down.
    package var children: [CellID] { (0..<4).map { CellID(level: level + 1, cell: cell << 2 | Int64($0)) } }
}
