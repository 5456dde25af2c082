/// A browser's push subscription (the Push API's `PushSubscription`).
public struct PushSubscription: Sendable, Equatable {
    public var id: Int64
    public var userID: Int64
    /// The push service's URL for this browser (checked by the service before it is kept).
    public var endpoint: String
    /// The browser's P-256 public key, base64url (65 bytes uncompressed).
    public var p256dh: String
    /// The browser's authentication secret, base64url (16 bytes).
    public var auth: String
    public var createdAt: Timestamp

    public init(id: Int64, userID: Int64, endpoint: String, p256dh: String, auth: String, createdAt: Timestamp) {
        self.id = id
        self.userID = userID
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.createdAt = createdAt
    }
}

/// One push to send: a notification group's addition to one subscription.
public struct PushDelivery: Sendable, Equatable {
    public var id: Int64
    public var subscription: PushSubscription
    /// The group's row, read when the push is written (it may have grown or gone since).
    public var groupRowID: Int64
    /// The id of the event that made the delivery: the payload's `notification_id`.
    public var notificationID: Int64
    /// Attempts before this one.
    public var attempts: Int
    /// The recipient's language for the texts.
    public var language: Language

    public init(
        id: Int64, subscription: PushSubscription, groupRowID: Int64, notificationID: Int64, attempts: Int,
        language: Language
    ) {
        self.id = id
        self.subscription = subscription
        self.groupRowID = groupRowID
        self.notificationID = notificationID
        self.attempts = attempts
        self.language = language
    }
}

/// How a delivery attempt ended.
public enum PushDeliveryOutcome: Sendable, Equatable {
    /// Accepted by the push service, or nothing left to push (the group is gone): forgotten.
    case done
    /// Try again at this time.
    case retry(at: Timestamp)
    /// The push service says the subscription is gone (`404`/`410`): it is deleted, with its
    /// other deliveries.
    case subscriptionGone
}

/// Users' push subscriptions and the deliveries waiting for them. Deliveries are rows, made in
/// the notification's own transaction: one that was not sent when the process died is sent
/// after the restart, and a claim (a lease) lets one instance only send it.
public protocol PushStore: Sendable {
    /// Keeps `endpoint` for `user` (the same endpoint again updates its keys and moves it to
    /// the user); a user keeps at most `limit`, the oldest giving way. Answers the subscription
    /// and whether it is new.
    func savePushSubscription(
        user: Int64, endpoint: String, p256dh: String, auth: String, at time: Timestamp, limit: Int
    ) async throws -> (subscription: PushSubscription, created: Bool)
    /// The user's subscriptions, oldest first.
    func pushSubscriptions(of user: Int64) async throws -> [PushSubscription]
    /// Deletes the user's subscription `id`; `false` when the user has none of that id.
    func deletePushSubscription(id: Int64, of user: Int64) async throws -> Bool
    /// Claims up to `limit` deliveries due at `time` that no live claim holds, until
    /// `time + lease`, counting the attempt.
    func claimPushDeliveries(at time: Timestamp, lease: Duration, limit: Int) async throws -> [PushDelivery]
    /// Settles a claimed delivery.
    func finishPushDelivery(_ delivery: PushDelivery, _ outcome: PushDeliveryOutcome) async throws
    /// When the next delivery falls due, if any is waiting.
    func nextPushDeliveryDue() async throws -> Timestamp?
}

/// The limits of push subscriptions.
public enum PushLimits {
    /// Subscriptions a user keeps; an eleventh replaces the oldest.
    public static let subscriptionsPerUser = 10
    /// The most attempts a delivery gets before it is dropped.
    public static let attempts = 10
}
