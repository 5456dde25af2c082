import BurgerMapCore

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

extension AccountStore {
    /// The caller's own profile (`Me`).
    func me(_ user: User) async throws -> ProfileView {
        ProfileView(user: user, stats: try await profileStats(of: user.id, viewer: user.id), includesEmail: true)
    }
}
