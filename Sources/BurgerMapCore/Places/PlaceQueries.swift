import Foundation

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
    /// Only places open at this time (`OpenNow`: hours that parse, in a known time zone).
    public var openAt: Date?

    /// Whether a filter is on: the walk then examines at most
    /// `ReadBounds.filteredNearbyCandidates` places a page.
    public var hasFilters: Bool { reviewedOnly || minRating != nil || category != nil || openAt != nil }

    public init(
        lat: Double, lng: Double, radiusM: Double, limit: Int, reviewedOnly: Bool = false,
        minRating: Double? = nil, category: String? = nil, after: NearbyKey? = nil, openAt: Date? = nil
    ) {
        self.lat = lat
        self.lng = lng
        self.radiusM = radiusM
        self.limit = limit
        self.reviewedOnly = reviewedOnly
        self.minRating = minRating
        self.category = category
        self.after = after
        self.openAt = openAt
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
    /// Where the next page starts when the search stopped at its work bound before the page was
    /// full (`ReadBounds.filteredNearbyCandidates`): every place before this key was seen. `nil`
    /// when the next page starts after the last item.
    public var resumeAfter: NearbyKey?

    public init(items: [NearbyPlace], hasMore: Bool, resumeAfter: NearbyKey? = nil) {
        self.items = items
        self.hasMore = hasMore
        self.resumeAfter = resumeAfter
    }

    /// The key the next page starts after, or `nil` at the end.
    public var nextKey: NearbyKey? {
        guard hasMore else { return nil }
        return resumeAfter ?? items.last.map { NearbyKey(distanceM: $0.distanceM, id: $0.place.id) }
    }
}

/// How much work one read of the places may do, whatever the data: a request's cost follows its
/// page, never the number of places in an area. A read that reaches its bound before its page is
/// full answers the places it found with a cursor that resumes where it stopped. One rule for
/// both engines.
public enum ReadBounds {
    /// The candidates a filtered nearby search examines for one page (those that fail the
    /// filters included). Without filters every candidate qualifies, so the walk ends with the
    /// page. Measured on 1,000,000 places (SQLite): a 50 km search for a category no place has
    /// examined every place within the radius, 70 ms; bounded, about 2 ms.
    public static let filteredNearbyCandidates = 2_048
    /// A viewport with at most this many places is answered by sorting them all (exact, cheap);
    /// with more, by walking the places most-reviewed first and keeping those inside.
    public static let viewportSortCandidates = 4_096
    /// The places a viewport walk examines for one page.
    public static let viewportWalkRows = 16_384
}

/// A map-viewport search (`GET /v1/places?bbox=`).
public struct ViewportQuery: Sendable, Hashable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double
    public var limit: Int
    /// The last position of the previous page: results start strictly after it.
    public var after: ViewportKey?

    public init(west: Double, south: Double, east: Double, north: Double, limit: Int, after: ViewportKey? = nil) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
        self.limit = limit
        self.after = after
    }

    /// Whether a place at `lat`, `lng` is inside the box (edges included).
    public func contains(lat: Double, lng: Double) -> Bool {
        lat >= south && lat <= north && longitudeSpans.contains { $0.contains(lng) }
    }

    /// Whether the box crosses the antimeridian (`west > east`).
    public var crossesAntimeridian: Bool { west > east }

    /// The box as one or two longitude spans that do not wrap.
    public var longitudeSpans: [ClosedRange<Double>] {
        crossesAntimeridian ? [west...180, -180...east] : [west...east]
    }
}

/// The order of a viewport's places: most-reviewed first, then by id.
public struct ViewportKey: Sendable, Hashable, Comparable {
    public var reviewCount: Int
    public var id: Int64

    public init(reviewCount: Int, id: Int64) {
        self.reviewCount = reviewCount
        self.id = id
    }

    public static func < (lhs: ViewportKey, rhs: ViewportKey) -> Bool {
        lhs.reviewCount != rhs.reviewCount ? lhs.reviewCount > rhs.reviewCount : lhs.id < rhs.id
    }
}

/// The places of a viewport, most-reviewed first, and whether more were inside.
public struct ViewportResult: Sendable {
    public var items: [Place]
    public var truncated: Bool
    /// Where the next page starts when more places follow: after the last item, or, when the
    /// walk stopped at its bound before the page was full, after the last place it examined.
    public var nextKey: ViewportKey?

    public init(items: [Place], truncated: Bool, nextKey: ViewportKey? = nil) {
        self.items = items
        self.truncated = truncated
        self.nextKey =
            nextKey ?? (truncated ? items.last.map { ViewportKey(reviewCount: $0.reviewCount, id: $0.id) } : nil)
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
    /// A vector tile's clusters and single places (`TileBuilder`'s rule), from one snapshot.
    func tile(_ query: TileQuery) async throws -> TileContent
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
    /// The attributions the licences of the stored sources require (an OpenStreetMap extract's
    /// "© OpenStreetMap contributors"), each once, in order.
    func sourceAttributions() async throws -> [String]
}
