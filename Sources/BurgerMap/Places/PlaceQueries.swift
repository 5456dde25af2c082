/// A nearest-first search around a point (`GET /v1/places/nearby`).
public struct NearbyQuery: Sendable, Hashable {
    public var lat: Double
    public var lng: Double
    public var radiusM: Double
    public var limit: Int
    /// Only places with at least one review.
    public var reviewedOnly: Bool = false
    /// Only places whose average rating is at least this.
    public var minRating: Double?
    /// Only places of this category (exact match).
    public var category: String?
    /// The last (distance, id) of the previous page: results start strictly after it.
    public var after: NearbyKey?

    public init(
        lat: Double, lng: Double, radiusM: Double, limit: Int, reviewedOnly: Bool = false,
        minRating: Double? = nil, category: String? = nil, after: NearbyKey? = nil
    ) {
        self.lat = lat
        self.lng = lng
        self.radiusM = radiusM
        self.limit = limit
        self.reviewedOnly = reviewedOnly
        self.minRating = minRating
        self.category = category
        self.after = after
    }
}

/// The keyset position of a nearby result: distance first, then id.
public struct NearbyKey: Sendable, Hashable, Comparable {
    public var distanceM: Double
    public var id: Int64

    public init(distanceM: Double, id: Int64) {
        self.distanceM = distanceM
        self.id = id
    }

    public static func < (lhs: NearbyKey, rhs: NearbyKey) -> Bool {
        (lhs.distanceM, lhs.id) < (rhs.distanceM, rhs.id)
    }
}

/// One page of a nearby search.
public struct NearbyPage: Sendable {
    public var items: [NearbyPlace]
    /// Whether more places follow the last item.
    public var hasMore: Bool

    public init(items: [NearbyPlace], hasMore: Bool) {
        self.items = items
        self.hasMore = hasMore
    }
}

/// A map-viewport search (`GET /v1/places?bbox=`).
public struct ViewportQuery: Sendable, Hashable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double
    public var limit: Int

    public init(west: Double, south: Double, east: Double, north: Double, limit: Int) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
        self.limit = limit
    }

    /// Whether the box crosses the antimeridian (`west > east`).
    public var crossesAntimeridian: Bool { west > east }

    /// The box as one or two longitude spans that do not wrap.
    public var longitudeSpans: [ClosedRange<Double>] {
        crossesAntimeridian ? [west...180, -180...east] : [west...east]
    }
}

/// The places of a viewport, most-reviewed first, and whether more were inside.
public struct ViewportResult: Sendable {
    public var items: [Place]
    public var truncated: Bool

    public init(items: [Place], truncated: Bool) {
        self.items = items
        self.truncated = truncated
    }
}

/// Where places are stored and searched. The HTTP layer sees only this, so that another engine
/// (PostgreSQL with PostGIS) can be added without touching it.
public protocol PlaceStore: Sendable {
    /// Places within the query's radius, nearest first (ties by id), one page.
    func nearbyPlaces(_ query: NearbyQuery) async throws -> NearbyPage
    /// Places inside a viewport, most-reviewed first.
    func placesInViewport(_ query: ViewportQuery) async throws -> ViewportResult
    /// The places inside a box grouped into the Web Mercator cells of a zoom, counted exactly.
    func clusters(_ query: ClusterQuery) async throws -> ClusterResult
    /// Places whose folded name or address contains the query's folded text, ranked (exact
    /// name, name prefix, name substring, address only; within a rank by distance from the
    /// point, else most-reviewed first; then id), one page after the query's key.
    func searchPlaces(_ query: SearchQuery) async throws -> SearchPage
    /// One place, or `nil`.
    func place(id: Int64) async throws -> Place?
    /// Stores a place that `userID` adds, unless one with the same (`source`, `external_id`)
    /// exists; answers the stored place and whether it is new.
    func createPlace(_ draft: PlaceDraft, by userID: Int64) async throws -> (place: Place, created: Bool)
    /// Changes a place; only the user who added it may (`forbidden` for anyone else).
    func updatePlace(id: Int64, by userID: Int64, _ edit: PlaceEdit, at time: Timestamp) async throws
        -> OwnerOnlyChange<Place>
    /// Deletes a place the user added, unless it has reviews.
    func deletePlace(id: Int64, by userID: Int64) async throws -> PlaceDeletion
    /// Every import source with its number of places, by name (`burgermap sources`).
    func placeSources() async throws -> [PlaceSource]
    /// Deletes the places of an import source, except those with reviews (reviews keep their
    /// place); answers how many were deleted and how many stayed (`burgermap remove-source`).
    func removePlaceSource(_ name: String) async throws -> (deleted: Int, kept: Int)
}
