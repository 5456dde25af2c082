import Foundation

/// An entry that joins a user's open group of its key (or opens one): one like, comment, follow,
/// review or decision.
public struct NotificationEntry: Sendable, Equatable {
    public var recipient: Int64
    public var type: NotificationType
    public var groupKey: String
    /// Who acted; `nil` for a moderation decision (moderators stay unnamed).
    public var actor: Int64?
    /// What was acted on, to take the entry back later: the liked review, the comment, the new
    /// review, the source event of a decision; 0 for a follow.
    public var object: Int64
    /// The review the group is about (a like's, a comment's, a new review, hidden content's).
    public var review: Int64?
    /// The comment (a comment entry, or a decision on a comment).
    public var comment: Int64?
    public var decision: String?
    public var time: Timestamp

    public init(
        recipient: Int64, type: NotificationType, groupKey: String, actor: Int64?, object: Int64,
        review: Int64? = nil, comment: Int64? = nil, decision: String? = nil, time: Timestamp
    ) {
        self.recipient = recipient
        self.type = type
        self.groupKey = groupKey
        self.actor = actor
        self.object = object
        self.review = review
        self.comment = comment
        self.decision = decision
        self.time = time
    }
}

/// What one event does to the notification lists. Engines apply these in one transaction per
/// batch of events (`NotificationStore.applyNotifications`), checking in SQL what only the
/// database knows at that moment: blocks, settings, whether the content is still visible.
public enum NotificationChange: Sendable, Equatable {
    /// A new entry, unless the recipient turned the type off, a block stands between the two,
    /// or the content is gone or hidden.
    case add(NotificationEntry)
    /// A new review, to each follower of `author` who turned `review_by_followed` on.
    case reviewByFollowed(author: Int64, review: Int64, time: Timestamp)
    /// Takes `actor`'s entry on `object` back out of the recipient's unread groups of `type`
    /// (an unlike, an unfollow); a group left empty disappears.
    case retract(recipient: Int64, type: NotificationType, actor: Int64, object: Int64)
    /// A review hidden or deleted: its likes, comments and new-review groups disappear.
    case forgetReview(Int64)
    /// A comment hidden or deleted: its entries leave their groups.
    case forgetComment(Int64)
    /// A block: what each of the two did in the other's groups disappears.
    case forgetPair(Int64, Int64)
    /// A deleted account: its entries everywhere (its own groups go with its row).
    case forgetActor(Int64)
}

/// The one rule of what each event means to whom, for both engines.
public enum NotificationRules {
    /// The changes `recorded` makes; none for events that notify no one.
    public static func changes(for recorded: RecordedEvent) -> [NotificationChange] {
        let event = recorded.event
        let time = recorded.time
        let details = event.details
        func add(_ entry: NotificationEntry) -> [NotificationChange] {
            // Nobody is told of their own actions.
            entry.actor == entry.recipient ? [] : [.add(entry)]
        }
        switch event.kind {
        case .reviewLiked:
            guard let actor = event.actor, let author = details.user else { return [] }
            return add(
                NotificationEntry(
                    recipient: author, type: .like, groupKey: "like-review-\(event.subject)", actor: actor,
                    object: event.subject, review: event.subject, time: time))
        case .reviewUnliked:
            guard let actor = event.actor, let author = details.user else { return [] }
            return [.retract(recipient: author, type: .like, actor: actor, object: event.subject)]
        case .commentCreated:
            guard let actor = event.actor, let author = details.user, let review = details.review else { return [] }
            return add(
                NotificationEntry(
                    recipient: author, type: .comment, groupKey: "comment-review-\(review)", actor: actor,
                    object: event.subject, review: review, comment: event.subject, time: time))
        case .commentDeleted:
            return [.forgetComment(event.subject)]
        case .userFollowed:
            guard let actor = event.actor else { return [] }
            return add(
                NotificationEntry(
                    recipient: event.subject, type: .follow, groupKey: "follow-\(utcDay(time))", actor: actor,
                    object: 0, time: time))
        case .userUnfollowed:
            guard let actor = event.actor else { return [] }
            return [.retract(recipient: event.subject, type: .follow, actor: actor, object: 0)]
        case .reviewCreated:
            guard let actor = event.actor else { return [] }
            return [.reviewByFollowed(author: actor, review: event.subject, time: time)]
        case .reviewDeleted:
            return [.forgetReview(event.subject)]
        case .reviewHidden, .reviewUnhidden, .commentHidden, .commentUnhidden:
            return visibilityChanges(recorded)
        case .reportDecided:
            guard let reporter = details.user, let decision = details.decision else { return [] }
            return add(
                NotificationEntry(
                    recipient: reporter, type: .moderation, groupKey: "moderation-\(recorded.id)", actor: nil,
                    object: recorded.id, decision: decision, time: time))
        case .userBlocked:
            guard let actor = event.actor else { return [] }
            return [.forgetPair(actor, event.subject)]
        case .accountDeleted:
            return [.forgetActor(event.subject)]
        default:
            return []
        }
    }

    /// Hidden content leaves every list but its owner's, who is told of the decision (whether a
    /// moderator or enough reports hid it); restored content is told of too, but what it had
    /// gathered stays gone.
    static func visibilityChanges(_ recorded: RecordedEvent) -> [NotificationChange] {
        let event = recorded.event
        guard let owner = event.details.user else { return [] }
        let hidden = event.kind == .reviewHidden || event.kind == .commentHidden
        let isReview = event.kind == .reviewHidden || event.kind == .reviewUnhidden
        var changes: [NotificationChange] = []
        if hidden { changes.append(isReview ? .forgetReview(event.subject) : .forgetComment(event.subject)) }
        changes.append(
            .add(
                NotificationEntry(
                    recipient: owner, type: .moderation, groupKey: "moderation-\(recorded.id)", actor: nil,
                    object: recorded.id, review: isReview ? event.subject : event.details.review,
                    comment: isReview ? nil : event.subject, decision: hidden ? "hidden" : "restored",
                    time: recorded.time)))
        return changes
    }

    /// `2026-11-25`: the UTC day that groups a day's new followers.
    public static func utcDay(_ time: Timestamp) -> String {
        let days = Int64((Double(time.milliseconds) / 86_400_000).rounded(.down))
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm): no calendar object
        // per event.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}

extension NotificationRules {
    /// The event that tells `recipient`'s streams a notification group of theirs changed (an
    /// entry added, retracted or forgotten): no actor, the group as subject.
    public static func groupUpdated(_ group: Int64, recipient: Int64) -> DomainEvent {
        DomainEvent(.notificationUpdated, actor: nil, subject: group, details: EventDetails(user: recipient))
    }
}
