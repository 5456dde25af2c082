/// One item of a user's notification list: what happened to what (`groupKey`), by whom, how
/// many times. Likes and comments on one review gather in one group until it is read; follows
/// by UTC day; a new review of someone followed and a moderation decision stand alone.
public struct NotificationGroup: Sendable, Equatable {
    /// The row's own id (the subject of its `notification.*` events).
    public var rowID: Int64
    /// The recipient.
    public var userID: Int64
    public var type: NotificationType
    public var groupKey: String
    /// The id of the event that last added to the group: the item's `id`, its place in the
    /// list (newest first) and the `id:` of the stream's line for that addition.
    public var latestEventID: Int64
    /// The id of the event of the group's last change (an addition or a retraction): where a
    /// stream that resumes finds it.
    public var changedEventID: Int64
    /// How many entries (likes, comments, follows…) the group holds; 0 once all were taken back.
    public var count: Int
    public var latestAt: Timestamp
    /// Up to three of the latest actors, newest first (none for moderation).
    public var actors: [User]
    /// The review the group is about, with its place and the start of its text.
    public var review: NotificationReview?
    /// The latest comment of a comment group.
    public var comment: NotificationComment?
    public var read: Bool
    /// A moderation item's decision: `hidden`, `restored` or `dismissed`.
    public var decision: String?

    public init(
        rowID: Int64, userID: Int64, type: NotificationType, groupKey: String, latestEventID: Int64,
        changedEventID: Int64, count: Int, latestAt: Timestamp, actors: [User], review: NotificationReview?,
        comment: NotificationComment?, read: Bool, decision: String?
    ) {
        self.rowID = rowID
        self.userID = userID
        self.type = type
        self.groupKey = groupKey
        self.latestEventID = latestEventID
        self.changedEventID = changedEventID
        self.count = count
        self.latestAt = latestAt
        self.actors = actors
        self.review = review
        self.comment = comment
        self.read = read
        self.decision = decision
    }
}

/// The review of a notification: `{id, place_id, excerpt}`.
public struct NotificationReview: Sendable, Equatable {
    public var id: Int64
    public var placeID: Int64
    public var excerpt: String

    public init(id: Int64, placeID: Int64, text: String) {
        self.id = id
        self.placeID = placeID
        excerpt = NotificationExcerpt.of(text)
    }
}

/// The comment of a notification: `{id, excerpt}`.
public struct NotificationComment: Sendable, Equatable {
    public var id: Int64
    public var excerpt: String

    public init(id: Int64, text: String) {
        self.id = id
        excerpt = NotificationExcerpt.of(text)
    }
}

/// The start of a review's or comment's text as a notification shows it.
public enum NotificationExcerpt {
    /// Characters as people count them (grapheme clusters), so no letter is cut in half.
    public static let length = 80

    public static func of(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count <= length ? flat : String(flat.prefix(length - 1)) + "…"
    }
}

/// Which of a user's notification lists a request reads.
public struct NotificationFilter: Sendable, Equatable {
    /// The types to show; all when empty.
    public var types: Set<NotificationType>
    public var unreadOnly: Bool

    public init(types: Set<NotificationType> = [], unreadOnly: Bool = false) {
        self.types = types
        self.unreadOnly = unreadOnly
    }

    /// The types as a bit mask (every type when none is named).
    public var mask: Int {
        types.isEmpty ? NotificationType.allCases.reduce(0) { $0 | $1.bit } : types.reduce(0) { $0 | $1.bit }
    }
}

/// The groups a `POST /v1/notifications/read` marks read.
public enum NotificationSelection: Sendable, Equatable {
    /// Every group whose latest event is at most this id.
    case upTo(Int64)
    /// The groups with these keys.
    case groupKeys([String])
}

/// The most unread groups a count reports: beyond it a client shows "1000+", and the count
/// costs the same for everyone.
public enum NotificationLimits {
    public static let unreadCountCap = 1_000
    /// The most group keys one `read` request names.
    public static let groupKeysPerRequest = 100
    /// The most actors an item shows.
    public static let actorsShown = 3
}
