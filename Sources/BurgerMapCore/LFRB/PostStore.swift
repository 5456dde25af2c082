/// The reads the LookForRealBurger routes need beyond the native ones. The app's generic
/// "posts" embed lists that the native API pages separately (a place's reviews, a review's
/// likers, bookmarkers and comments), so each read here answers a whole page of posts at once,
/// never one query per post. Like the native lists, what `viewer` and another user block between
/// them, and hidden content (but the viewer's own), is left out.
public protocol PostStore: Sendable {
    /// Up to `limit` places with an id above `afterID`, by id (the app's map load reads every
    /// place, in keyset pages).
    func places(afterID: Int64, limit: Int) async throws -> [Place]
    /// For each of `places` that has reviews, its newest `limit` reviews, newest first (ties by id).
    func reviewLinks(places: [Int64], limit: Int, viewer: Int64?) async throws -> [Int64: [ReviewLink]]
    /// For each of `reviews` that has any, the users with `reaction` on it, most recent first
    /// (ties by user id), at most `limit` each.
    func reactingUsers(_ reaction: Reaction, reviews: [Int64], limit: Int) async throws -> [Int64: [Int64]]
    /// For each of `reviews` that has any, its newest `limit` comments, newest first (ties by id),
    /// as the app lists them.
    func comments(reviews: [Int64], limit: Int, viewer: Int64?) async throws -> [Int64: [Comment]]
    /// The ids of a user's newest `limit` reviews, newest first (ties by id).
    func reviewIDs(author: Int64, limit: Int, viewer: Int64?) async throws -> [Int64]
}

/// A review as a place's post lists it: which review, when, and by whom.
public struct ReviewLink: Sendable, Equatable {
    public var reviewID: Int64
    public var createdAt: Timestamp
    public var authorID: Int64
    public var authorNickname: String

    /// A link (storage engines build these).
    public init(reviewID: Int64, createdAt: Timestamp, authorID: Int64, authorNickname: String) {
        self.reviewID = reviewID
        self.createdAt = createdAt
        self.authorID = authorID
        self.authorNickname = authorNickname
    }
}
