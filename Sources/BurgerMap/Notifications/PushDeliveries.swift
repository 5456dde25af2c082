import BurgerMapCore
import Foundation
import Logging

/// The push delivery worker: claims the deliveries that are due (one instance per delivery:
/// the claim is a lease in the database), writes each push from the group as it is now, in the
/// recipient's language, encrypts it for the subscription and sends it; then settles the row:
/// gone when accepted, again later with backoff on `429`/`5xx`/timeouts, the subscription
/// deleted on `404`/`410`. Rows survive a crash: an unsettled claim falls due again when its
/// lease ends.
final class PushDeliveries: Sendable {
    let store: any PushStore
    let notifications: any NotificationStore
    let sender: PushSender
    let signal: EventSignal
    /// The first retry's delay; each further one doubles it, up to `maximumDelay`.
    let retryBase: Duration
    let now: @Sendable () -> Timestamp
    let logger: Logger
    static let maximumDelay: Duration = .seconds(300)
    /// How long a claim holds a delivery: longer than a send can take.
    static let lease: Duration = .seconds(60)
    /// Deliveries sent at once.
    static let batch = 8
    /// What a push lives in a push service's queue while the browser is offline.
    static let timeToLive = 86_400

    init(
        store: any PushStore, notifications: any NotificationStore, sender: PushSender, signal: EventSignal,
        retryBase: Duration, now: @escaping @Sendable () -> Timestamp, logger: Logger
    ) {
        self.store = store
        self.notifications = notifications
        self.sender = sender
        self.signal = signal
        self.retryBase = retryBase
        self.now = now
        self.logger = logger
    }

    /// Runs until cancelled, woken when this instance's worker made notifications, and every
    /// second (retries falling due, deliveries another instance's worker made). Not by every
    /// write: looking for due deliveries on each like cost the like throughput a read each.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    self.signal.ring()
                }
            }
            group.addTask {
                var rings = self.signal.rings().makeAsyncIterator()
                while !Task.isCancelled {
                    if await self.deliverDue() > 0 { continue }
                    guard await rings.next() != nil else { return }
                }
            }
        }
    }

    /// Sends the deliveries due now; answers how many.
    @discardableResult
    func deliverDue() async -> Int {
        do {
            guard let due = try await store.nextPushDeliveryDue(), due <= now() else { return 0 }
            let claimed = try await store.claimPushDeliveries(at: now(), lease: Self.lease, limit: Self.batch)
            await withDiscardingTaskGroup { group in
                for delivery in claimed { group.addTask { await self.deliver(delivery) } }
            }
            return claimed.count
        } catch {
            logger.warning("push deliveries unavailable", metadata: ["error": "\(error)"])
            return 0
        }
    }

    private func deliver(_ delivery: PushDelivery) async {
        let outcome: PushDeliveryOutcome
        if let group = try? await notifications.notificationGroup(rowID: delivery.groupRowID), group.count > 0,
            let endpoint = URL(string: delivery.subscription.endpoint),
            let key = Base64URL.decode(delivery.subscription.p256dh),
            let secret = Base64URL.decode(delivery.subscription.auth),
            let body = try? WebPushEncryption.encrypt(
                Array(PushPayload(group: group, id: delivery.notificationID, language: delivery.language).json.utf8),
                subscriberPublicKey: key, authSecret: secret)
        {
            switch await sender.send(body, to: endpoint, ttl: Self.timeToLive, urgency: "normal") {
            case .accepted: outcome = .done
            case .gone: outcome = .subscriptionGone
            case .refused(let status):
                logger.notice(
                    "push refused", metadata: ["status": "\(status)", "subscription": "\(delivery.subscription.id)"])
                outcome = .done
            case .retry(let after):
                outcome = delivery.attempts + 1 >= PushLimits.attempts ? .done : .retry(at: retryTime(delivery, after))
            }
        } else {
            // The group was emptied or removed (nothing left to tell), or the row is unusable.
            outcome = .done
        }
        try? await store.finishPushDelivery(delivery, outcome)
    }

    /// When to try again: the service's `Retry-After`, else `retryBase` doubled per attempt.
    func retryTime(_ delivery: PushDelivery, _ after: Duration?) -> Timestamp {
        let doubled = retryBase * (1 << min(delivery.attempts, 16))
        let delay = after.map { max($0, retryBase) } ?? min(doubled, Self.maximumDelay)
        return Timestamp(milliseconds: now().milliseconds + delay.milliseconds)
    }
}

/// A push's JSON: `{notification_id, type, title, body, url}`, the texts in the recipient's
/// language; within the 3,993 bytes one `aes128gcm` record of 4 KiB carries.
struct PushPayload {
    var group: NotificationGroup
    var id: Int64
    var language: Language
    static let maximumBytes = 3_993

    var json: String {
        let texts = PushTexts.texts(for: group, in: language)
        var body = texts.body
        while Self.render(id, group, texts.title, body).utf8.count > Self.maximumBytes, !body.isEmpty {
            body = String(body.dropLast(max(body.count / 4, 1))) + "…"
        }
        return Self.render(id, group, texts.title, body)
    }

    private static func render(_ id: Int64, _ group: NotificationGroup, _ title: String, _ body: String) -> String {
        "{\"notification_id\":\(id),\"type\":\"\(group.type.rawValue)\",\"title\":\(EventDetails.jsonString(title))"
            + ",\"body\":\(EventDetails.jsonString(body)),\"url\":\(EventDetails.jsonString(url(group)))}"
    }

    /// Where the push leads: the review, the follower, or the notification list.
    static func url(_ group: NotificationGroup) -> String {
        switch group.type {
        case .follow: group.actors.first.map { "/v1/users/\($0.id)" } ?? "/v1/notifications"
        default: group.review.map { "/v1/reviews/\($0.id)" } ?? "/v1/notifications"
        }
    }
}
