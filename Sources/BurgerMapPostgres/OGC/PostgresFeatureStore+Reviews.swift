import BurgerMapCore
import PostgresNIO

extension PostgresFeatureStore {
    /// A review is public unless moderation hid it (as the lists show reviews to a visitor who
    /// is not signed in); an account's reviews go with the account.
    static let publicReview = "r.hidden_at IS NULL"

    /// The columns `reviewFeature(_:from:)` reads: the review, its place's name and position,
    /// its author's nickname and its photos in their order (aggregated per review).
    static let reviewColumns = """
        r.id, r.place_id, p.name, p.lat, p.lng, r.rating, r.title, r.text, u.nickname, r.created_at,
        coalesce((SELECT array_agg(ph.id ORDER BY ph.position) FROM photos AS ph WHERE ph.review_id = r.id), '{}')
        """

    static let reviewFrom = "reviews AS r JOIN places AS p ON p.id = r.place_id JOIN users AS u ON u.id = r.author_id"

    public func reviewFeatures(_ query: ReviewFeatureQuery) async throws -> FeaturePage<ReviewFeature> {
        var filter = Filter()
        filter.conditions.append(Self.publicReview)
        if let placeID = query.placeID { filter.conditions.append("r.place_id = \(filter.bind(placeID))") }
        if let rating = query.rating { filter.conditions.append("r.rating = \(filter.bind(Int64(rating)))") }
        filter.add(created: query.created, column: "r.created_at")
        if let box = query.box {
            filter.add(box: box, alias: "p", index: try await isSmall(box, cap: query.paging.indexCandidates))
        }
        // The places only for a box: the other filters are on the review's own row.
        let countFrom = query.box == nil ? "reviews AS r" : "reviews AS r JOIN places AS p ON p.id = r.place_id"
        let statement = Self.pageStatement(
            columns: Self.reviewColumns, from: Self.reviewFrom, countFrom: countFrom, id: "r.id", filter: filter,
            paging: query.paging)
        var matched: Int64?
        var reviews: [ReviewFeature] = []
        for try await row in try await pool.query(statement, logger: logger) {
            let row = row.makeRandomAccess()
            matched = try row[0].decode(Int64?.self)
            guard try row[1].decode(Int64?.self) != nil else { continue }
            reviews.append(try Self.reviewFeature(row, from: 1))
        }
        return FeaturePage(
            rows: reviews, limit: query.paging.limit, id: \.id,
            numberMatched: Self.numberMatched(matched, query.paging))
    }

    public func reviewFeature(id: Int64) async throws -> ReviewFeature? {
        let rows = try await pool.query(
            PostgresQuery(
                unsafeSQL:
                    "SELECT \(Self.reviewColumns) FROM \(Self.reviewFrom) WHERE r.id = $1 AND \(Self.publicReview)",
                binds: {
                    var binds = PostgresBindings()
                    binds.append(id)
                    return binds
                }()),
            logger: logger)
        var found: ReviewFeature?
        for try await row in rows { found = try Self.reviewFeature(row.makeRandomAccess(), from: 0) }
        return found
    }

    /// The feature of a row that selects `reviewColumns` from column `first` on.
    static func reviewFeature(_ row: PostgresRandomAccessRow, from first: Int) throws -> ReviewFeature {
        func value<T: PostgresDecodable>(_ column: Int, _ type: T.Type = T.self) throws -> T {
            try row[first + column].decode(T.self)
        }
        return ReviewFeature(
            id: try value(0), placeID: try value(1), placeName: try value(2), lat: try value(3), lng: try value(4),
            rating: Int(try value(5, Int64.self)), title: try value(6),
            excerpt: ReviewFeature.excerpt(of: try value(7, String.self)), authorNickname: try value(8),
            photoIDs: try value(10), createdAt: Timestamp(milliseconds: try value(9)))
    }
}
