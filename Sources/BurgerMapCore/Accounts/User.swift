/// A person with an account, as stored (never with the password hash).
public struct User: Sendable, Equatable {
    public var id: Int64
    public var email: String
    public var nickname: String
    public var bio: String?
    public var avatarUrl: String?
    public var createdAt: Timestamp

    /// An account as stored (storage engines build these).
    public init(id: Int64, email: String, nickname: String, bio: String?, avatarUrl: String?, createdAt: Timestamp) {
        self.id = id
        self.email = email
        self.nickname = nickname
        self.bio = bio
        self.avatarUrl = avatarUrl
        self.createdAt = createdAt
    }
}

/// The counts and viewer-dependent fields that turn a `User` into a `Profile`.
public struct ProfileStats: Sendable, Equatable {
    public var reviewCount = 0
    public var followerCount = 0
    public var followingCount = 0
    /// Whether the viewer follows this user (`false` without a viewer).
    public var isFollowing = false

    public init(reviewCount: Int = 0, followerCount: Int = 0, followingCount: Int = 0, isFollowing: Bool = false) {
        self.reviewCount = reviewCount
        self.followerCount = followerCount
        self.followingCount = followingCount
        self.isFollowing = isFollowing
    }
}
