import BurgerMapCore
import GRDB

extension AppDatabase {
    /// The statements that take an account's rows away, in an order that lets every count
    /// trigger see the rows it counts: first what the user did to others (likes, bookmarks,
    /// comments, follows), then what the user wrote (reviews, with what others did to them),
    /// then the account, whose cascades take the rest (logins, tokens, photos, pending photos,
    /// replay answers, write counts). Places the user added keep no creator (`SET NULL`).
    static let accountDeletion = [
        "DELETE FROM review_likes WHERE user_id = ?1",
        "DELETE FROM review_bookmarks WHERE user_id = ?1",
        "DELETE FROM comments WHERE author_id = ?1",
        "DELETE FROM follows WHERE follower_id = ?1 OR followee_id = ?1",
        "DELETE FROM reviews WHERE author_id = ?1",
        "DELETE FROM users WHERE id = ?1",
    ]

    /// Deletes an account and everything of it (see `AccountStore.deleteAccount`).
    public func deleteAccount(id: Int64) async throws -> [Int64]? {
        try await measured("delete_account") {
            try await pool.write { db in
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [id]) == true else {
                    return nil
                }
                let photoIDs = try Int64.fetchAll(db, sql: "SELECT id FROM photos WHERE owner_id = ?", arguments: [id])
                let places = try Int64.fetchAll(
                    db, sql: "SELECT DISTINCT place_id FROM reviews WHERE author_id = ? ORDER BY place_id",
                    arguments: [id])
                for statement in Self.accountDeletion {
                    try db.execute(sql: statement, arguments: [id])
                }
                // The places the reviews were about: counts, average and cover again.
                for place in places { try Self.refreshPlaceStats(db, placeID: place) }
                try self.recordEvent(AccountRules.deleted(id), at: .now(), in: db)
                return photoIDs
            }
        }
    }
}
