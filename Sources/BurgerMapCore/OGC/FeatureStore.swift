/// A box in CRS84 degrees (`west,south,east,north`); `west > east` crosses the antimeridian, as
/// a map viewport does (`ViewportQuery`).
public struct FeatureBox: Sendable, Hashable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// The box as one or two longitude spans that do not wrap.
    public var longitudeSpans: [ClosedRange<Double>] {
        west > east ? [west...180, -180...east] : [west...east]
    }

    /// Whether a point is inside the box (edges included).
    public func contains(lat: Double, lng: Double) -> Bool {
        lat >= south && lat <= north && longitudeSpans.contains { $0.contains(lng) }
    }
}

/// A span of `created_at` in milliseconds: `start` inclusive, `end` exclusive; a `nil` end is
/// open (OGC API – Features' `datetime`).
public struct TimeRange: Sendable, Hashable {
    public var start: Int64?
    public var end: Int64?

    public init(start: Int64?, end: Int64?) {
        self.start = start
        self.end = end
    }
}

/// How a page of features is cut: at most `limit` features with an id above `after`, in id
/// order (a keyset on the primary key), and whether to count the matches.
public struct FeaturePaging: Sendable, Hashable {
    public var limit: Int
    /// The id of the last feature of the previous page; `nil` on the first page.
    public var after: Int64?
    /// Whether to count the matches (`numberMatched`): on a walk's first page only (the HTTP
    /// layer carries the count in its cursors), since a count may read up to `matchBound` rows.
    public var countsMatches: Bool
    /// The most matches counted exactly; above it the count is left out.
    public var matchBound: Int
    /// The most spatial index candidates of a box read from the index
    /// (`FeatureBounds.indexCandidates`; tests set 0 to walk every box).
    public var indexCandidates: Int

    public init(
        limit: Int, after: Int64? = nil, countsMatches: Bool = true, matchBound: Int = FeatureBounds.numberMatched,
        indexCandidates: Int = FeatureBounds.indexCandidates
    ) {
        self.limit = limit
        self.after = after
        self.countsMatches = countsMatches
        self.matchBound = matchBound
        self.indexCandidates = indexCandidates
    }
}

/// The bounds of a feature page's work: one rule for both engines.
public enum FeatureBounds {
    /// `numberMatched` is exact up to this many matches and left out above it. It is counted
    /// with a subquery limited to one more row, so that a count reads at most this many matches
    /// (and, for a filter no index serves, the rows between them), once per walk: an OGC client
    /// pages through a million places, and a plain count would read them all on every page.
    public static let numberMatched = 10_000
    /// The most features one page may hold (`limit`).
    public static let pageLimit = 10_000
    /// A box whose spatial index holds at most this many candidates is answered from the index
    /// (the candidates sorted by id); a denser box is a range filter on a walk of the primary key,
    /// where its places are common enough that a page fills after a bounded number of rows (at
    /// most the page × places ÷ this, on evenly spread places). Measured on PostgreSQL with
    /// 1,000,000 places, a page of 1,000: a box of 16,400 places took 90 ms from the index
    /// (a heap page per candidate) and 16 ms as a walk; a box of 2 places 0.2 ms from the index.
    public static let indexCandidates = 4_096
}

/// The `places` collection's query: a box and equality filters (the collection's queryables).
public struct PlaceFeatureQuery: Sendable, Hashable {
    public var box: FeatureBox?
    public var category: String?
    public var source: String?
    /// When the place was added.
    public var created: TimeRange?
    public var paging: FeaturePaging

    public init(
        box: FeatureBox? = nil, category: String? = nil, source: String? = nil, created: TimeRange? = nil,
        paging: FeaturePaging
    ) {
        self.box = box
        self.category = category
        self.source = source
        self.created = created
        self.paging = paging
    }

    /// Whether anything but the page narrows the walk.
    public var isFiltered: Bool { box != nil || category != nil || source != nil || created != nil }
}

/// The `reviews` collection's query: a box (on the reviewed place's position) and equality
/// filters (the collection's queryables).
public struct ReviewFeatureQuery: Sendable, Hashable {
    public var box: FeatureBox?
    public var placeID: Int64?
    public var rating: Int?
    /// When the review was written.
    public var created: TimeRange?
    public var paging: FeaturePaging

    public init(
        box: FeatureBox? = nil, placeID: Int64? = nil, rating: Int? = nil, created: TimeRange? = nil,
        paging: FeaturePaging
    ) {
        self.box = box
        self.placeID = placeID
        self.rating = rating
        self.created = created
        self.paging = paging
    }

    /// Whether anything but the page narrows the walk.
    public var isFiltered: Bool { box != nil || placeID != nil || rating != nil || created != nil }
}

/// A public review as a map feature: a point at its place, with what a map shows of it.
public struct ReviewFeature: Sendable, Equatable {
    public var id: Int64
    public var placeID: Int64
    public var placeName: String
    public var lat: Double
    public var lng: Double
    public var rating: Int
    public var title: String?
    /// The first `excerptLength` characters of the text (`excerpt(of:)`).
    public var excerpt: String
    public var authorNickname: String
    /// The review's photos in their order.
    public var photoIDs: [Int64]
    public var createdAt: Timestamp

    public init(
        id: Int64, placeID: Int64, placeName: String, lat: Double, lng: Double, rating: Int, title: String?,
        excerpt: String, authorNickname: String, photoIDs: [Int64], createdAt: Timestamp
    ) {
        self.id = id
        self.placeID = placeID
        self.placeName = placeName
        self.lat = lat
        self.lng = lng
        self.rating = rating
        self.title = title
        self.excerpt = excerpt
        self.authorNickname = authorNickname
        self.photoIDs = photoIDs
        self.createdAt = createdAt
    }

    /// How many characters of a review's text a feature carries.
    public static let excerptLength = 200

    /// The first `excerptLength` characters of `text`, as people count them (grapheme clusters),
    /// so that an excerpt never ends inside a character.
    public static func excerpt(of text: String) -> String {
        String(text.prefix(excerptLength))
    }
}

/// One page of a feature collection.
public struct FeaturePage<Item: Sendable>: Sendable {
    public var items: [Item]
    /// The id the next page starts after; `nil` on the last page.
    public var next: Int64?
    /// The number of matches of the whole query when it is at most the bound; `nil` when more
    /// match, or when the query did not count.
    public var numberMatched: Int?

    public init(items: [Item], next: Int64?, numberMatched: Int?) {
        self.items = items
        self.next = next
        self.numberMatched = numberMatched
    }

    /// A page from `limit + 1` rows read in id order: the extra row only says that more follow.
    package init(rows: [Item], limit: Int, id: (Item) -> Int64, numberMatched: Int?) {
        items = Array(rows.prefix(limit))
        next = rows.count > limit ? items.last.map(id) : nil
        self.numberMatched = numberMatched
    }
}

/// The features of the OGC API – Features collections (`/ogc`), read in id order.
///
/// A page is a keyset walk on the primary key: the features with an id above the previous page's
/// last, the box a range filter on the place's position (or, for a small box, the spatial index's
/// candidates sorted by id). Only public content: a review that moderation hid is not a feature.
public protocol FeatureStore: Sendable {
    /// One page of the places that match.
    func placeFeatures(_ query: PlaceFeatureQuery) async throws -> FeaturePage<Place>
    /// One page of the public reviews that match, each with its place's position and name, its
    /// author's nickname and its photos (one read per page, never one per review).
    func reviewFeatures(_ query: ReviewFeatureQuery) async throws -> FeaturePage<ReviewFeature>
    /// One public review, or `nil` (missing or hidden).
    func reviewFeature(id: Int64) async throws -> ReviewFeature?
}
