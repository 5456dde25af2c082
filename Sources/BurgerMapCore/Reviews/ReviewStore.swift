/// Where reviews and their photo rows live, with the place counts and the `Idempotency-Key`
/// claims that change with them (which review a key made; the answer sent for it is kept by the
/// `IdempotencyStore`). Files are never the store's business: a write that gives photo files
/// their final names does it in the caller's `beforeCommit` step.
public protocol ReviewStore: Sendable {
    /// One review as `viewer` sees it, or `nil`.
    func review(id: Int64, viewer: Int64?) async throws -> Review?
    /// One page of a newest-first review list (ties by id), strictly after `after`.
    func reviews(_ scope: ReviewListScope, after: TimeKey?, limit: Int, viewer: Int64?) async throws
        -> KeysetPage<Review>
    /// Whether a review exists and `viewer` may see it (a hidden review only its author sees): the
    /// comments of a missing or hidden review are `404`, not empty.
    func reviewVisible(id: Int64, viewer: Int64?) async throws -> Bool
    /// Stores a review with its photos in one transaction: the review row, one row per photo,
    /// the place's counts and cover, its event, and (with a key) the key's claim naming the new
    /// review. A key this user used within `IdempotencyKey.lifetime` stores nothing and answers
    /// `replayed`. `beforeCommit` runs with the new photo ids, in order, before the commit; if it
    /// or anything else throws, no row is left; a pending photo that cannot be attached throws
    /// `PendingPhotosUnavailable` (which `createReview` answers as `photosUnavailable`).
    func storeReview(
        _ draft: ReviewDraft, photos: [PhotoSize], idempotency: IdempotencyKey?, at time: Timestamp,
        beforeCommit: @Sendable ([Int64]) throws -> Void
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
    /// `storeReview`, with a pending photo that cannot be attached answered `photosUnavailable`.
    public func createReview(
        _ draft: ReviewDraft, photos: [PhotoSize], idempotency: IdempotencyKey?, at time: Timestamp,
        beforeCommit: @Sendable ([Int64]) throws -> Void
    ) async throws -> ReviewCreation {
        do {
            return try await storeReview(
                draft, photos: photos, idempotency: idempotency, at: time, beforeCommit: beforeCommit)
        } catch is PendingPhotosUnavailable {
            return .photosUnavailable
        }
    }

    /// Changes the rating and/or text of the caller's own review, leaving its title.
    public func updateReview(id: Int64, by userID: Int64, rating: Int?, text: String?, at time: Timestamp)
        async throws -> OwnerOnlyChange<Review>
    {
        try await updateReview(id: id, by: userID, rating: rating, title: nil, text: text, at: time)
    }
}

/// What creating a review came to.
public enum ReviewCreation: Sendable {
    /// Stored.
    case created(Review)
    /// The same Idempotency-Key was used by this user within 24 hours, by the request that made
    /// review `reviewID` (`nil` for a key claimed by a version that kept only the answer): the
    /// caller answers what the `IdempotencyStore` kept for it.
    case replayed(reviewID: Int64?)
    /// The key was used by this user within 24 hours for another request (another fingerprint,
    /// `IdempotencyKey.matches`): nothing was stored, and nothing is replayed.
    case keyReused
    /// The place does not exist (any more).
    case placeMissing
    /// A pending photo of the draft is not the author's, not pending (attached already, or
    /// never uploaded) or expired: nothing was stored.
    case photosUnavailable
}

/// Thrown inside a review's transaction to roll it back when a pending photo cannot be attached.
public struct PendingPhotosUnavailable: Error {
    public init() {}
}

/// What a change that only an object's owner (or, for comments, the review's author) may make came to.
public enum OwnerOnlyChange<Value: Sendable>: Sendable {
    case done(Value)
    case notFound
    case forbidden
}

/// An `Idempotency-Key` header of one user, with the fingerprint of the request that carries it.
public struct IdempotencyKey: Sendable, Hashable {
    public var userID: Int64
    public var key: String
    /// What the request was (its method, path and body, hashed: `IdempotencyFingerprint`), so
    /// that a key reused for another request is refused rather than answered with the first's
    /// answer; `nil` compares equal to anything (claims made before fingerprints were kept).
    public var fingerprint: String?
    /// How long the first answer is replayed (milliseconds).
    public static let lifetime: Int64 = 24 * 3600 * 1000

    public init(userID: Int64, key: String, fingerprint: String? = nil) {
        self.userID = userID
        self.key = key
        self.fingerprint = fingerprint
    }

    /// Whether an earlier claim of this key, with the fingerprint it stored, was made by the
    /// same request (the IETF draft's rule: a reuse with another method, path or body is refused).
    public func matches(claimedWith stored: String?) -> Bool {
        guard let fingerprint, let stored else { return true }
        return fingerprint == stored
    }
}
