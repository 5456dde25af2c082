import BurgerMapCore

/// The JSON document of a data export: everything one account wrote or did, in the API's own
/// shapes (`Review`, `Comment`, `UserSummary`), and the photos it holds. Everything of the
/// account's is in it, also what blocks or moderation hide from it in lists.
enum AccountExport {
    /// Items read per page while the export is collected.
    static let pageSize = 100

    /// Every item of a keyset-paged list.
    static func all<Item>(_ page: (TimeKey?) async throws -> KeysetPage<Item>) async throws -> [Item] {
        var items: [Item] = []
        var after: TimeKey?
        repeat {
            let next = try await page(after)
            items += next.items
            after = next.next
        } while after != nil
        return items
    }

    /// The document's bytes and the ids of the photos the archive adds (the reviews' and the avatar).
    static func collect(
        user: User, accounts: any AccountStore, reviews: any ReviewStore, social: any SocialStore,
        blocks: any BlockStore, notifications: any NotificationStore, at time: Timestamp
    ) async throws -> (document: [UInt8], photoIDs: [Int64]) {
        let id = user.id
        let written = try await all { try await reviews.reviews(.author(id), after: $0, limit: pageSize, viewer: id) }
        let comments = try await all { try await social.comments(author: id, after: $0, limit: pageSize) }
        let liked = try await social.reactedReviewIDs(.like, user: id)
        let bookmarked = try await social.reactedReviewIDs(.bookmark, user: id)
        let blocked = try await all { try await blocks.blocks(of: id, after: $0, limit: pageSize) }
        let following = try await all { try await social.follows(.following, of: id, after: $0, limit: pageSize) }
        let followers = try await all { try await social.follows(.followers, of: id, after: $0, limit: pageSize) }
        var received: [NotificationGroup] = []
        var before: Int64?
        repeat {
            let page = try await notifications.notifications(
                for: id, filter: NotificationFilter(), before: before, limit: pageSize)
            received += page
            before = page.count == pageSize ? page.last?.latestEventID : nil
        } while before != nil
        let me = try await accounts.me(user)
        var writer = JSONWriter(capacity: 4096 + written.count * 700 + comments.count * 300)
        writer.object { writer in
            writer.key("exported_at")
            writer.value(time)
            writer.key("account")
            me.write(to: &writer)
            writer.key("reviews")
            writer.array { writer in for review in written { review.write(to: &writer) } }
            writer.key("comments")
            writer.array { writer in for comment in comments { comment.write(to: &writer) } }
            writer.key("liked_reviews")
            writer.array { writer in for review in liked { writer.value(review) } }
            writer.key("bookmarked_reviews")
            writer.array { writer in for review in bookmarked { writer.value(review) } }
            writer.key("following")
            writer.array { writer in for person in following { UserSummaryView(user: person).write(to: &writer) } }
            writer.key("followers")
            writer.array { writer in for person in followers { UserSummaryView(user: person).write(to: &writer) } }
            writer.key("blocked")
            writer.array { writer in for person in blocked { UserSummaryView(user: person).write(to: &writer) } }
            writer.key("notifications")
            writer.array { writer in for group in received { NotificationView(group: group).write(to: &writer) } }
        }
        var photoIDs = written.flatMap { $0.photos.map(\.id) }
        if let avatar = user.avatarUrl.flatMap(PhotoURL.photoID(ofURL:)) { photoIDs.append(avatar) }
        return (writer.bytes, photoIDs)
    }
}
