import BurgerMapCore
import GRDB

/// The conditions of a feature query, with their arguments in order.
struct FeatureFilter {
    var conditions: [String] = []
    var arguments: StatementArguments = []

    /// `1` when there is no condition, so that the SQL reads the same either way.
    var sql: String { conditions.isEmpty ? "1" : conditions.joined(separator: " AND ") }

    mutating func add(_ condition: String, _ values: StatementArguments = []) {
        conditions.append(condition)
        arguments += values
    }

    /// A span of `created_at` (milliseconds; either end may be open).
    mutating func add(created: TimeRange?, column: String) {
        if let start = created?.start { add("\(column) >= ?", [start]) }
        if let end = created?.end { add("\(column) < ?", [end]) }
    }

    /// The box on the stored position: a plain range filter (the R*Tree holds boxes rounded
    /// outwards, so the exact test is on `lat` and `lng` in every case).
    mutating func add(box: FeatureBox, lat: String, lng: String) {
        let spans = box.longitudeSpans
        add(
            "\(lat) BETWEEN ? AND ? AND (\(spans.map { _ in "\(lng) BETWEEN ? AND ?" }.joined(separator: " OR ")))",
            StatementArguments([box.south, box.north] + spans.flatMap { [$0.lowerBound, $0.upperBound] }))
    }
}

extension AppDatabase: FeatureStore {
    public func placeFeatures(_ query: PlaceFeatureQuery) async throws -> FeaturePage<Place> {
        try await measured("place_features") { try await read { db in try Self.placeFeatures(db, query) } }
    }

    /// A page of places in id order. A box whose R*Tree candidates are few
    /// (`FeatureBounds.indexCandidates`) reads those candidates only; any other query walks the
    /// primary key from the cursor on with its filters as plain conditions (`source` through its
    /// index, which SQLite keeps in id order within a source).
    static func placeFeatures(_ db: Database, _ query: PlaceFeatureQuery) throws -> FeaturePage<Place> {
        var filter = FeatureFilter()
        if let category = query.category { filter.add("category = ?", [category]) }
        if let source = query.source { filter.add("source = ?", [source]) }
        filter.add(created: query.created, column: "created_at")
        if let box = query.box {
            filter.add(box: box, lat: "lat", lng: "lng")
            if let candidates = try smallBoxCandidates(db, box, cap: query.paging.indexCandidates) {
                filter.add("id IN (\(candidates.sql))", candidates.arguments)
            }
        }
        let paging = query.paging
        let arguments: StatementArguments = [paging.after ?? 0]
        let places = try fetchPlaces(
            db, sql: "SELECT \(placeColumns) FROM places WHERE id > ? AND \(filter.sql) ORDER BY id LIMIT ?",
            arguments: arguments + filter.arguments + [paging.limit + 1])
        let matched = try countMatches(db, from: "places", filter, paging)
        return FeaturePage(rows: places, limit: paging.limit, id: \.id, numberMatched: matched)
    }

    /// The R*Tree query of a box's candidates (place ids) when it holds at most `cap` of them
    /// (counted in the index, no further; `FeatureBounds.indexCandidates`); `nil` for a denser
    /// box.
    static func smallBoxCandidates(_ db: Database, _ box: FeatureBox, cap: Int) throws -> (
        sql: String, arguments: StatementArguments
    )? {
        var parts: [String] = []
        var arguments: StatementArguments = []
        for span in box.longitudeSpans {
            parts.append("SELECT pkid FROM idx_places_geom WHERE xmax >= ? AND xmin <= ? AND ymax >= ? AND ymin <= ?")
            arguments += [span.lowerBound, span.upperBound, box.south, box.north]
        }
        let sql = parts.joined(separator: " UNION ALL ")
        let count =
            try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(sql) LIMIT \(cap + 1))", arguments: arguments) ?? 0
        return count <= cap ? (sql, arguments) : nil
    }

    /// The number of rows of `from` that `filter` keeps, when it is at most the bound: a count
    /// limited to one row more, so that it reads at most that many matches.
    static func countMatches(_ db: Database, from: String, _ filter: FeatureFilter, _ paging: FeaturePaging) throws
        -> Int?
    {
        guard paging.countsMatches else { return nil }
        let count =
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM (SELECT 1 FROM \(from) WHERE \(filter.sql) LIMIT ?)",
                arguments: filter.arguments + [paging.matchBound + 1]) ?? 0
        return count <= paging.matchBound ? count : nil
    }

    public func reviewFeatures(_ query: ReviewFeatureQuery) async throws -> FeaturePage<ReviewFeature> {
        try await measured("review_features") { try await read { db in try Self.reviewFeatures(db, query) } }
    }

    public func reviewFeature(id: Int64) async throws -> ReviewFeature? {
        try await measured("review_feature") {
            try await read { db in
                try Self.reviewFeatures(
                    db, sql: "\(Self.reviewFeatureSelect) WHERE r.id = ? AND \(Self.publicReview)", arguments: [id]
                )
                .first
            }
        }
    }

    /// A review is public unless moderation hid it (as the lists show reviews to a visitor
    /// who is not signed in); an account's reviews go with the account.
    static let publicReview = "r.hidden_at IS NULL"

    static let reviewFeatureSelect = """
        SELECT r.id, r.place_id, p.name, p.lat, p.lng, r.rating, r.title, r.text, u.nickname, r.created_at
        FROM reviews AS r JOIN places AS p ON p.id = r.place_id JOIN users AS u ON u.id = r.author_id
        """

    /// A page of public reviews in id order: the primary key walked from the cursor on, or the
    /// reviews of one place (`reviews_by_place`), or of a small box's places.
    static func reviewFeatures(_ db: Database, _ query: ReviewFeatureQuery) throws -> FeaturePage<ReviewFeature> {
        var filter = FeatureFilter()
        filter.add(publicReview)
        if let placeID = query.placeID { filter.add("r.place_id = ?", [placeID]) }
        if let rating = query.rating { filter.add("r.rating = ?", [rating]) }
        filter.add(created: query.created, column: "r.created_at")
        if let box = query.box {
            filter.add(box: box, lat: "p.lat", lng: "p.lng")
            if let candidates = try smallBoxCandidates(db, box, cap: query.paging.indexCandidates) {
                filter.add("r.place_id IN (\(candidates.sql))", candidates.arguments)
            }
        }
        let paging = query.paging
        let arguments: StatementArguments = [paging.after ?? 0]
        let reviews = try reviewFeatures(
            db, sql: "\(reviewFeatureSelect) WHERE r.id > ? AND \(filter.sql) ORDER BY r.id LIMIT ?",
            arguments: arguments + filter.arguments + [paging.limit + 1])
        // The places only for a box: the other filters are on the review's own row.
        let from = query.box == nil ? "reviews AS r" : "reviews AS r JOIN places AS p ON p.id = r.place_id"
        let matched = try countMatches(db, from: from, filter, paging)
        return FeaturePage(rows: reviews, limit: paging.limit, id: \.id, numberMatched: matched)
    }

    /// The reviews a query over `reviewFeatureSelect` returns, in its order, with their photos:
    /// one more query for the whole page.
    private static func reviewFeatures(_ db: Database, sql: String, arguments: StatementArguments) throws
        -> [ReviewFeature]
    {
        var reviews = try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            ReviewFeature(
                id: row[0], placeID: row[1], placeName: row[2], lat: row[3], lng: row[4], rating: row[5],
                title: row[6], excerpt: ReviewFeature.excerpt(of: row[7]), authorNickname: row[8], photoIDs: [],
                createdAt: Timestamp(milliseconds: row[9]))
        }
        guard !reviews.isEmpty else { return reviews }
        var photos: [Int64: [Int64]] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT review_id, id FROM photos WHERE review_id IN (\(placeholders(reviews.count)))
                ORDER BY review_id, position
                """,
            arguments: StatementArguments(reviews.map(\.id)))
        {
            photos[row[0], default: []].append(row[1])
        }
        for index in reviews.indices { reviews[index].photoIDs = photos[reviews[index].id] ?? [] }
        return reviews
    }
}
