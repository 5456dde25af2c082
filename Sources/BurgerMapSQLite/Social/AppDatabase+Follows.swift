import BurgerMapCore
import GRDB

extension AppDatabase {
    private static let followPairs = PairTable(name: "follows", actor: "follower_id", target: "followee_id")

    /// Makes `follower` follow (`active`) or stop following `followee`, idempotently; the pair's
    /// primary key and the schema's triggers keep both users' counts exact. `nil` when `followee`
    /// does not exist. Following oneself is refused by the caller (and by a CHECK).
    public func setFollow(
        _ active: Bool, follower: Int64, followee: Int64, at time: Timestamp = .now()
    ) async throws -> FollowState? {
        try await measured("set_follow") {
            try await pool.write { db in
                guard try Self.userExists(db, id: followee) else { return nil }
                let changed = try Self.followPairs.set(active, actor: follower, target: followee, at: time, in: db)
                if let event = SocialRules.followEvent(
                    following: active, follower: follower, followee: followee, rowChanged: changed)
                {
                    try self.recordEvent(event, at: time, in: db)
                }
                let count = try Int.fetchOne(
                    db, sql: "SELECT follower_count FROM users WHERE id = ?", arguments: [followee])
                return FollowState(following: active, followerCount: count ?? 0)
            }
        }
    }

    /// A page of a user's followers or followees, newest follow first (ties by user id).
    public func follows(_ list: FollowList, of userID: Int64, after: TimeKey?, limit: Int) async throws
        -> KeysetPage<User>
    {
        let (mine, theirs) = list == .followers ? ("followee_id", "follower_id") : ("follower_id", "followee_id")
        return try await measured("follows") {
            try await pool.read { db in
                let query = KeysetOrder.newestFirst.query(
                    """
                    SELECT \(Self.qualified(Self.userColumns, by: "u")), f.created_at AS followed_at
                    FROM follows AS f JOIN users AS u ON u.id = f.\(theirs)
                    """, where: "f.\(mine) = ?", [userID], time: "f.created_at", id: "f.\(theirs)", after: after,
                    limit: limit)
                let rows = try Row.fetchAll(db, sql: query.sql, arguments: query.arguments)
                return KeysetPage(
                    rows: rows, limit: limit, item: Self.user,
                    key: { TimeKey(time: Timestamp(milliseconds: $0["followed_at"]), id: $0["id"]) })
            }
        }
    }

    /// A user's counts, and whether `viewer` follows them (`false` without a viewer).
    public func profileStats(of userID: Int64, viewer: Int64?) async throws -> ProfileStats {
        try await pool.read { db in
            let counts = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT count(*) FROM reviews WHERE author_id = ?1) AS review_count,
                           follower_count, following_count,
                           EXISTS (SELECT 1 FROM follows WHERE follower_id = ?2 AND followee_id = ?1) AS is_following
                    FROM users WHERE id = ?1
                    """,
                arguments: [userID, viewer])
            guard let counts else { return ProfileStats() }
            return ProfileStats(
                reviewCount: counts["review_count"], followerCount: counts["follower_count"],
                followingCount: counts["following_count"], isFollowing: counts["is_following"])
        }
    }
}
