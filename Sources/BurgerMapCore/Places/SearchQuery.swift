/// A place search by name or address (`GET /v1/places/search`).
public struct SearchQuery: Sendable, Hashable {
    /// The query already folded by `SearchText.fold`, at least two code points.
    public var text: String
    /// The point that orders each rank by distance; without one, by review count.
    public var lat: Double?
    public var lng: Double?
    /// Only places at most this far from the point (metres), when set.
    public var radiusM: Double?
    public var limit: Int
    /// The last key of the previous page: results start strictly after it.
    public var after: SearchKey?

    public init(
        text: String, lat: Double? = nil, lng: Double? = nil, radiusM: Double? = nil, limit: Int,
        after: SearchKey? = nil
    ) {
        self.text = text
        self.lat = lat
        self.lng = lng
        self.radiusM = radiusM
        self.limit = limit
        self.after = after
    }

    /// The query point, when both coordinates are set.
    public var point: (lat: Double, lng: Double)? {
        guard let lat, let lng else { return nil }
        return (lat, lng)
    }
}

/// The keyset position of a search result: rank (0 exact name, 1 name prefix, 2 name substring,
/// 3 address only), then `order` (the distance in metres with a point, minus the review count
/// without), then id; all ascending.
public struct SearchKey: Sendable, Hashable, Comparable {
    public var rank: Int
    public var order: Double
    public var id: Int64

    public init(rank: Int, order: Double, id: Int64) {
        self.rank = rank
        self.order = order
        self.id = id
    }

    public static func < (lhs: SearchKey, rhs: SearchKey) -> Bool {
        (lhs.rank, lhs.order, lhs.id) < (rhs.rank, rhs.order, rhs.id)
    }
}

/// A place that matched, as an engine reads it before ranking: the rank its SQL worked out from
/// the folded columns, and what orders it within the rank.
public struct SearchCandidate: Sendable {
    public var id: Int64
    public var rank: Int
    public var lat: Double
    public var lng: Double
    public var reviewCount: Int

    public init(id: Int64, rank: Int, lat: Double, lng: Double, reviewCount: Int) {
        self.id = id
        self.rank = rank
        self.lat = lat
        self.lng = lng
        self.reviewCount = reviewCount
    }
}

/// One result of a search: the place, its distance from the query point (when there is one) and
/// its keyset position.
public struct SearchResult: Sendable {
    public var place: Place
    public var distanceM: Double?
    public var key: SearchKey

    public init(place: Place, distanceM: Double?, key: SearchKey) {
        self.place = place
        self.distanceM = distanceM
        self.key = key
    }
}

/// One page of a search.
public struct SearchPage: Sendable {
    public var items: [SearchResult]
    /// Whether more places follow the last item.
    public var hasMore: Bool

    public init(items: [SearchResult], hasMore: Bool) {
        self.items = items
        self.hasMore = hasMore
    }
}

/// The order within a rank that both engines share, so that they answer the same pages to the
/// bit: each engine finds a rank's places (`TieredSearch`), this orders them.
public enum SearchRanking {
    /// The keys (and distances on the contract's sphere, `Geodesy`) of `candidates` strictly
    /// after the query's key and within its radius, in order.
    public static func ranked(_ candidates: [SearchCandidate], _ query: SearchQuery) -> [(
        key: SearchKey, distanceM: Double?
    )] {
        var ranked: [(key: SearchKey, distanceM: Double?)] = []
        ranked.reserveCapacity(candidates.count)
        let point = query.point
        for candidate in candidates {
            let key: SearchKey
            var distanceM: Double?
            if let point {
                let metres = Geodesy.distanceM(point.lat, point.lng, candidate.lat, candidate.lng)
                if let radius = query.radiusM, !(metres <= radius) { continue }
                distanceM = metres
                key = SearchKey(rank: candidate.rank, order: metres, id: candidate.id)
            } else {
                key = SearchKey(rank: candidate.rank, order: -Double(candidate.reviewCount), id: candidate.id)
            }
            if let after = query.after, !(after < key) { continue }
            ranked.append((key, distanceM))
        }
        ranked.sort { $0.key < $1.key }
        return ranked
    }
}
