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

/// A user's public profile (`Profile` in the contract), or their own (`Me`, with the email).
struct ProfileView: JSONWritable {
    var user: User
    var stats: ProfileStats
    var includesEmail: Bool

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            UserSummaryView(user: user).writeMembers(to: &writer)
            writer.key("bio")
            writer.value(user.bio)
            writer.key("review_count")
            writer.value(stats.reviewCount)
            writer.key("follower_count")
            writer.value(stats.followerCount)
            writer.key("following_count")
            writer.value(stats.followingCount)
            writer.key("is_following")
            writer.value(stats.isFollowing)
            writer.key("created_at")
            writer.value(user.createdAt)
            if includesEmail {
                writer.key("email")
                writer.value(user.email)
            }
        }
    }
}

/// `UserSummary` in the contract: what lists and reviews show of a person.
struct UserSummaryView: JSONWritable {
    var user: User

    func write(to writer: inout JSONWriter) {
        writer.object { writer in writeMembers(to: &writer) }
    }

    /// The members without the braces, for objects that extend a summary.
    func writeMembers(to writer: inout JSONWriter) {
        writer.key("id")
        writer.value(user.id)
        writer.key("nickname")
        writer.value(user.nickname)
        writer.key("avatar_url")
        writer.value(user.avatarUrl)
    }
}
