/// A follow after a toggle: whether the caller follows the user now, and that user's exact
/// follower count.
public struct FollowState: Sendable, Equatable {
    public var following: Bool
    public var followerCount: Int

    /// A follow's state after a toggle (storage engines build these).
    public init(following: Bool, followerCount: Int) {
        self.following = following
        self.followerCount = followerCount
    }
}

/// Which side of the follow graph a list shows.
public enum FollowList: Sendable {
    /// The people who follow a user.
    case followers
    /// The people a user follows.
    case following

    /// The name cursors are signed with.
    package var cursorName: String {
        switch self {
        case .followers: "followers"
        case .following: "following"
        }
    }
}
