/// The writes each user may make only so often: without a limit one account could post a
/// thousand comments a minute.
public enum WriteAction: String, Sendable, CaseIterable {
    case review
    case comment
    /// Likes and bookmarks, set or taken back.
    case reaction
    /// Follows, set or taken back.
    case follow
    case report
    /// Photos the LookForRealBurger app uploads ahead of a review.
    case upload
    /// A new avatar (each is a decode of up to 50 megapixels).
    case avatar
}

/// At most `count` writes of one kind per user in each `seconds`-long window.
public struct WriteLimit: Sendable, Equatable {
    public var count: Int
    public var seconds: Int

    public init(count: Int, seconds: Int) {
        self.count = count
        self.seconds = seconds
    }

    /// `COUNT/SECONDS`, e.g. `10/60`; `nil` when malformed or not positive.
    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let count = Int(parts[0]), let seconds = Int(parts[1]), count > 0,
            (1...86_400).contains(seconds)
        else { return nil }
        self.init(count: count, seconds: seconds)
    }
}

/// The write limits of every kind (`burgermap serve --write-limit KIND=COUNT/SECONDS`).
public struct WriteLimits: Sendable, Equatable {
    /// The defaults: far above what a person writes, far below what a script does.
    public var limits: [WriteAction: WriteLimit] = [
        .review: WriteLimit(count: 20, seconds: 3600),
        .comment: WriteLimit(count: 20, seconds: 60),
        .reaction: WriteLimit(count: 120, seconds: 60),
        .follow: WriteLimit(count: 60, seconds: 60),
        .report: WriteLimit(count: 20, seconds: 3600),
        .upload: WriteLimit(count: 40, seconds: 3600),
        .avatar: WriteLimit(count: 10, seconds: 3600),
    ]

    public init() {}

    public subscript(_ action: WriteAction) -> WriteLimit {
        get { limits[action]! }
        set { limits[action] = newValue }
    }
}

/// Where the write counts live: in the database, so that every instance of the service on one
/// database counts the same writes.
public protocol WriteLimitStore: Sendable {
    /// Counts one write of `action` by `user` in the window that starts at `windowStart`, unless
    /// the window already holds `limit` of them; answers whether it was counted. Atomic per
    /// (user, action, window), across instances. Also deletes a bounded number of counts of
    /// windows that started before `forgetBefore`.
    func countWrite(
        user: Int64, action: WriteAction, windowStart: Timestamp, limit: Int, forgetBefore: Timestamp
    ) async throws -> Bool
}
