/// What a notification tells of. The raw value is the stable name clients see (`type`) and the
/// key of the settings objects.
public enum NotificationType: String, Sendable, CaseIterable, Codable {
    /// Someone liked my review.
    case like
    /// Someone commented on my review.
    case comment
    /// Someone followed me.
    case follow
    /// Someone I follow posted a review (off by default: it can be many).
    case reviewByFollowed = "review_by_followed"
    /// A moderator's decision on my content, or on a report I made.
    case moderation

    /// The type's bit in a settings mask (stored as an integer by both engines).
    public var bit: Int { 1 << (Self.allCases.firstIndex(of: self) ?? 0) }

    /// The types that are on for a user who never changed a setting: all but reviews by people
    /// followed.
    public static let defaultMask = allCases.filter { $0 != .reviewByFollowed }.reduce(0) { $0 | $1.bit }
}

/// A user's notification settings: which types are listed (`list`) and which are pushed to
/// their browsers (`push`). A type that is off in the list is never made, so it is pushed
/// neither; the push switch only silences the push.
public struct NotificationSettings: Sendable, Equatable {
    public var listMask: Int
    public var pushMask: Int

    public init(listMask: Int = NotificationType.defaultMask, pushMask: Int = NotificationType.defaultMask) {
        self.listMask = listMask
        self.pushMask = pushMask
    }

    public func lists(_ type: NotificationType) -> Bool { listMask & type.bit != 0 }
    public func pushes(_ type: NotificationType) -> Bool { pushMask & type.bit != 0 }

    /// The settings with the switches `list` and `push` name changed, the others kept.
    public func changing(list: [NotificationType: Bool], push: [NotificationType: Bool]) -> NotificationSettings {
        func apply(_ mask: Int, _ changes: [NotificationType: Bool]) -> Int {
            changes.reduce(mask) { mask, change in change.value ? mask | change.key.bit : mask & ~change.key.bit }
        }
        return NotificationSettings(listMask: apply(listMask, list), pushMask: apply(pushMask, push))
    }
}
