/// Where reviews and their photo rows live, with the place counts and the `Idempotency-Key`
/// answers that change with them. Files are never the store's business: a write that gives
/// photo files their final names does it in the caller's `beforeCommit` step.
public protocol ReviewStore: Sendable {
    /// One review as `viewer` sees it, or `nil`.
    func review(id: Int64, viewer: Int64?) async throws -> Review?
    /// One page of a newest-first review list (ties by id), strictly after `after`.
    func reviews(_ scope: ReviewListScope, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Review>
    /// Whether a review exists and `viewer` may see it (a hidden review only its author sees): the
    /// comments of a missing or hidden review are `404`, not empty.
    func reviewVisible(id: Int64, viewer: Int64?) async throws -> Bool
    /// The first answer to an earlier request with this key, while it is replayed.
    func idempotentAnswer(_ key: IdempotencyKey, at time: Timestamp) async throws -> StoredAnswer?
    /// Stores a review with its photos in one transaction: the review row, one row per photo,
    /// the place's counts and cover, and (with a key) the answer `answer` renders for replays.
    /// `beforeCommit` runs with the new photo ids, in order, before the commit; if it or
    /// anything else throws, no row is left.
    func createReview(
        _ draft: ReviewDraft, photos: [PhotoSize], idempotency: IdempotencyKey?, at time: Timestamp,
        beforeCommit: @Sendable ([Int64]) throws -> Void, answer: @Sendable (Review) -> [UInt8]
    ) async throws -> ReviewCreation
    /// Changes the rating, title and/or text of the caller's own review (`nil` leaves a field;
    /// an empty title clears it).
    func updateReview(
        id: Int64, by userID: Int64, rating: Int?, title: String?, text: String?, at time: Timestamp
    ) async throws -> OwnerOnlyChange<Review>
    /// Deletes the caller's own review with its photo rows (and what hangs on it); answers the
    /// photo ids whose files the caller then removes.
    func deleteReview(id: Int64, by userID: Int64) async throws -> OwnerOnlyChange<[Int64]>
}

extension ReviewStore {
    /// Changes the rating and/or text of the caller's own review, leaving its title.
    public func updateReview(id: Int64, by userID: Int64, rating: Int?, text: String?, at time: Timestamp)
        async throws -> OwnerOnlyChange<Review>
    {
        try await updateReview(id: id, by: userID, rating: rating, title: nil, text: text, at: time)
    }
}

/// What creating a review came to.
public enum ReviewCreation: Sendable {
    /// Stored; `body` is what the caller's `answer` rendered for the `201`.
    case created(Review, body: [UInt8])
    /// The same Idempotency-Key was used by this user within 24 hours: the first answer again.
    case replayed(StoredAnswer)
    /// The place does not exist (any more).
    case placeMissing
    /// A pending photo of the draft is not the author's, not pending (attached already, or
    /// never uploaded) or expired: nothing was stored.
    case photosUnavailable
}

/// An answer kept for replaying (`Idempotency-Key`): its status and body.
public struct StoredAnswer: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// What a change that only an object's owner (or, for comments, the review's author) may make came to.
public enum OwnerOnlyChange<Value: Sendable>: Sendable {
    case done(Value)
    case notFound
    case forbidden
}

/// An `Idempotency-Key` header of one user.
public struct IdempotencyKey: Sendable, Hashable {
    public var userID: Int64
    public var key: String
    /// How long the first answer is replayed (milliseconds).
    public static let lifetime: Int64 = 24 * 3600 * 1000

    public init(userID: Int64, key: String) {
        self.userID = userID
        self.key = key
    }
}
