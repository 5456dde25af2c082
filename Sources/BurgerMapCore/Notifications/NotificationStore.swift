/// Where notification groups live, with the worker's progress through the event log, users'
/// settings and the one-use tickets of browser streams. Both engines implement it; the rules of
/// what an event means are `NotificationRules`, shared.
public protocol NotificationStore: Sendable {
    /// The id of the last event the notification worker applied (0 at first).
    func notificationProgress() async throws -> Int64
    /// Applies `changes` (made from the events after `previous` up to `last`) and moves the
    /// progress from `previous` to `last`, in one transaction. Each group changed records one
    /// `notification.updated` event; each entry added creates a push delivery per subscription
    /// of a recipient who has the type's push on. Answers `false`, changing nothing, when the
    /// progress is no longer `previous` (another instance applied these events first).
    func applyNotifications(_ changes: [NotificationChange], after previous: Int64, through last: Int64)
        async throws -> Bool

    /// A page of `user`'s groups with entries, newest (`latestEventID`) first, below `before`.
    func notifications(for user: Int64, filter: NotificationFilter, before: Int64?, limit: Int) async throws
        -> [NotificationGroup]
    /// How many unread groups `user` has, counted up to `cap`.
    func unreadNotificationCount(for user: Int64, cap: Int) async throws -> Int
    /// Marks `user`'s groups read.
    func markNotificationsRead(for user: Int64, _ selection: NotificationSelection) async throws
    /// `user`'s groups changed after the event `id` (emptied ones too, with count 0), in the
    /// order of their changes: what a stream that resumes has missed.
    func changedNotifications(for user: Int64, after id: Int64, limit: Int) async throws -> [NotificationGroup]
    /// One group by its row id (a `notification.updated` event's subject), as it is now.
    func notificationGroup(rowID: Int64) async throws -> NotificationGroup?
    /// Deletes up to `limit` emptied groups whose last change is older than the event `id`
    /// (streams can no longer resume before it); answers how many.
    func pruneEmptiedNotifications(changedBefore id: Int64, limit: Int) async throws -> Int

    func notificationSettings(for user: Int64) async throws -> NotificationSettings
    /// Changes the switches named, keeps the rest; answers the settings now.
    func updateNotificationSettings(for user: Int64, list: [NotificationType: Bool], push: [NotificationType: Bool])
        async throws -> NotificationSettings
    /// The language push texts are written in for `user`, kept from their last request that
    /// named one.
    func setNotificationLanguage(_ language: Language, for user: Int64) async throws

    /// Keeps a stream ticket (its hash) for `user` until `expiresAt`; the stream it opens ends
    /// at `streamEndsAt` (the access token's expiry).
    func createStreamTicket(hash: [UInt8], user: Int64, expiresAt: Timestamp, streamEndsAt: Timestamp)
        async throws
    /// Uses a ticket up: its user and when the stream must end, or `nil` when it is unknown,
    /// used or expired at `time`.
    func consumeStreamTicket(hash: [UInt8], at time: Timestamp) async throws -> (user: Int64, streamEndsAt: Timestamp)?
}
