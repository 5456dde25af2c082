/// The events of the social graph's writes, one rule both engines obey. Reactions and follows are
/// idempotent: a toggle that changed no row records nothing.
public enum SocialRules {
    /// The event of a like or bookmark toggle that changed its row (`author`: the review's).
    public static func reactionEvent(
        _ reaction: Reaction, active: Bool, user: Int64, review: Int64, author: Int64
    ) -> DomainEvent {
        DomainEvent(reaction.eventKind(active), actor: user, subject: review, details: EventDetails(user: author))
    }

    /// The event of a follow toggle, when it changed the follow row; `nil` when it did not.
    public static func followEvent(following active: Bool, follower: Int64, followee: Int64, rowChanged: Bool)
        -> DomainEvent?
    {
        guard rowChanged else { return nil }
        return DomainEvent(active ? .userFollowed : .userUnfollowed, actor: follower, subject: followee)
    }

    /// The event of a new comment (`reviewAuthor` is told).
    public static func commentCreated(_ comment: Int64, by author: Int64, on review: Int64, reviewAuthor: Int64)
        -> DomainEvent
    {
        DomainEvent(
            .commentCreated, actor: author, subject: comment, details: EventDetails(review: review, user: reviewAuthor))
    }

    /// The event of an edited comment, by its author.
    public static func commentEdited(_ comment: Int64, by user: Int64, on review: Int64, author: Int64)
        -> DomainEvent
    {
        DomainEvent(.commentEdited, actor: user, subject: comment, details: EventDetails(review: review, user: author))
    }

    /// The event of a deleted comment, by its author or the review's (`author`: the comment's).
    public static func commentDeleted(_ comment: Int64, by user: Int64, on review: Int64, author: Int64)
        -> DomainEvent
    {
        DomainEvent(.commentDeleted, actor: user, subject: comment, details: EventDetails(review: review, user: author))
    }

    /// Who may edit a comment: its author alone.
    public static func mayEdit(comment author: Int64, user: Int64) -> Bool { user == author }

    /// Who may delete a comment: its author, or the author of the review it is on.
    public static func mayDelete(comment author: Int64, onReviewBy reviewAuthor: Int64, user: Int64) -> Bool {
        user == author || user == reviewAuthor
    }
}
