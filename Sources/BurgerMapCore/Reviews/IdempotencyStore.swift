/// The answers kept for `Idempotency-Key` replays: the one store that holds response bytes, so
/// that the others take and return models. The key's claim (which review it made) is written by
/// `ReviewStore.createReview` in the review's transaction; the answer sent for it is kept here
/// right after, and a replay answers it byte for byte.
public protocol IdempotencyStore: Sendable {
    /// The answer kept for an earlier request with this key, while it is replayed (younger than
    /// `IdempotencyKey.lifetime`); `nil` when none was kept (yet).
    func keptAnswer(_ key: IdempotencyKey, at time: Timestamp) async throws -> StoredAnswer?
    /// Keeps `answer` for the request that claimed `key` (the claim is there: the answer's own
    /// request wrote it); a later keep of the same key changes nothing.
    func keepAnswer(_ answer: StoredAnswer, for key: IdempotencyKey) async throws
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
