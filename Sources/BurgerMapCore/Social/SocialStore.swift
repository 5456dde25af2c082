/// Where likes, bookmarks, comments and follows live, with the counts they keep. Every toggle
/// is idempotent and changes its count in the same transaction.
public protocol SocialStore: Sendable {
    /// Adds (`active`) or removes `user`'s reaction on a review; `nil` when the review does not
    /// exist, or (adding) is hidden from the user.
    func setReaction(_ reaction: Reaction, active: Bool, review reviewID: Int64, user userID: Int64, at time: Timestamp)
        async throws -> ReactionState?
    /// The reviews `user` reacted to, most recent reaction first (ties by review id).
    func reactedReviews(_ reaction: Reaction, user userID: Int64, after: TimeKey?, limit: Int) async throws
        -> KeysetPage<Review>
    /// The ids of every review `user` reacted to, most recent reaction first, whatever blocks
    /// or moderation hide: for their data export, which holds all of their rows.
    func reactedReviewIDs(_ reaction: Reaction, user userID: Int64) async throws -> [Int64]
    /// One comment as `viewer` sees it, or `nil`: a hidden comment, or one of a hidden review, only
    /// its author sees (the review's author, for a hidden review).
    func comment(id: Int64, viewer: Int64?) async throws -> Comment?
    /// A page of a review's comments, oldest first (ties by id), without the comments of users
    /// `viewer` blocks or who block `viewer`.
    func comments(review reviewID: Int64, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Comment>
    /// A page of a user's own comments, oldest first (ties by id), for their data export.
    func comments(author: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<Comment>
    /// Adds a comment (the review's count follows); `nil` when the review does not exist or is
    /// hidden from the author.
    func addComment(review reviewID: Int64, author: Int64, text: String, at time: Timestamp) async throws -> Comment?
    /// Changes the text of the caller's own comment.
    func updateComment(id: Int64, by userID: Int64, text: String, at time: Timestamp) async throws
        -> OwnerOnlyChange<Comment>
    /// Deletes a comment: its author or the review's author may.
    func deleteComment(id: Int64, by userID: Int64) async throws -> OwnerOnlyChange<Void>
    /// Makes `follower` follow (`active`) or stop following `followee`; `nil` when `followee`
    /// does not exist.
    func setFollow(_ active: Bool, follower: Int64, followee: Int64, at time: Timestamp) async throws -> FollowState?
    /// A page of a user's followers or followees, newest follow first (ties by user id).
    func follows(_ list: FollowList, of userID: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<User>
}

extension SocialStore {
    /// One comment as anyone sees it.
    public func comment(id: Int64) async throws -> Comment? {
        try await comment(id: id, viewer: nil)
    }

    /// A page of a review's comments as anyone sees them.
    public func comments(review reviewID: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<Comment> {
        try await comments(review: reviewID, after: after, limit: limit, viewer: nil)
    }
}

/// Where a reader's feed is assembled.
public protocol FeedStore: Sendable {
    /// A page of `viewer`'s feed: the reviews of the people they follow and their own, newest
    /// first (ties by id), keyset-paged on (created_at, id).
    func feed(of viewer: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<Review>
}

/// What every engine's feed shares.
public enum FeedRules {
    /// How many reviews (of anyone) the time-window road reads before it gives up. A reader who
    /// follows 1% of the authors fills a page of 20 within about 2,000; a sparser feed is cheaper
    /// by author.
    public static let window = 4_000
}
