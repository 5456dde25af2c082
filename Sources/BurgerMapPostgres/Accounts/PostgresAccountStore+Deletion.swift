import BurgerMapCore
import PostgresNIO

extension PostgresAccountStore {
    /// SQLite's `accountDeletion`, in the same order.
    static let accountDeletion: [String] = [
        "DELETE FROM review_likes WHERE user_id = $1",
        "DELETE FROM review_bookmarks WHERE user_id = $1",
        "DELETE FROM comments WHERE author_id = $1",
        "DELETE FROM follows WHERE follower_id = $1 OR followee_id = $1",
        "DELETE FROM reviews WHERE author_id = $1",
        "DELETE FROM users WHERE id = $1",
    ]

    /// Deletes an account and everything of it (see `AccountStore.deleteAccount`), as on SQLite.
    /// The account's row is locked first, then the places its reviews were about, in id order
    /// (the order review writes lock a place in, after their review), so that no review or
    /// like of the user can slip in meanwhile and the places' recounts see every change.
    public func deleteAccount(id: Int64) async throws -> [Int64]? {
        try await events.transaction(logger: logger) { connection in
            let found = try await connection.query("SELECT 1 FROM users WHERE id = \(id) FOR UPDATE", logger: logger)
            var exists = false
            for try await _ in found.decode(Int.self) { exists = true }
            guard exists else { return nil }
            var photoIDs: [Int64] = []
            for try await photo in try await connection.query(
                "SELECT id FROM photos WHERE owner_id = \(id)", logger: logger
            ).decode(Int64.self) {
                photoIDs.append(photo)
            }
            var places: [Int64] = []
            for try await place in try await connection.query(
                """
                SELECT id FROM places WHERE id IN (SELECT place_id FROM reviews WHERE author_id = \(id))
                ORDER BY id FOR NO KEY UPDATE
                """, logger: logger
            ).decode(Int64.self) {
                places.append(place)
            }
            for statement in Self.accountDeletion {
                try await connection.query(PostgresQuery(unsafeSQL: statement, binds: Self.binds(id)), logger: logger)
            }
            let reviews = PostgresReviewStore(pool: pool, logger: logger, events: events)
            for place in places { try await reviews.refreshPlaceStats(placeID: place, on: connection) }
            try await PostgresEventStore.record(
                AccountRules.deleted(id), at: .now(), on: connection, logger: logger)
            return photoIDs
        }
    }

    private static func binds(_ id: Int64) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(id)
        return binds
    }
}
