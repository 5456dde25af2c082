import BurgerMapCore
import Crypto
import Foundation
import Logging
import ServiceLifecycle

/// How notifications run (`burgermap serve`'s notification options).
public struct NotificationConfiguration: Sendable {
    /// Open streams per instance (`--max-streams`); beyond it a new stream is `503`.
    public var maxStreams = 10_000
    /// Open streams per user; a new one closes the user's oldest.
    public var streamsPerUser = 4
    /// How often an idle stream gets a comment line, so that proxies and clients keep it.
    public var heartbeat: Duration = .seconds(15)
    /// Push service hosts besides the known ones (`--push-endpoint-host HOST[:PORT]`).
    public var pushEndpointHosts: [String] = []
    /// Whether those hosts may be plain `http` (`--push-allow-http`; tests).
    public var pushAllowsHTTP = false
    /// The VAPID `sub` claim (`--vapid-subject`): `mailto:` or `https:` of the operator.
    public var vapidSubject = "mailto:admin@localhost"
    /// The VAPID key pair; `nil` reads `BURGERMAP_VAPID_PRIVATE_KEY` or the data folder's file
    /// (made on first start).
    public var vapidKeys: VAPIDKeys?
    /// The deadline of one push request.
    public var pushTimeout: Duration = .seconds(10)
    /// The first retry's delay of a push (doubled per attempt).
    public var pushRetryBase: Duration = .seconds(1)

    public init() {}
}

/// The notification parts of one instance: the worker that makes groups from events, the
/// streams, the push deliveries, and what their routes share.
public final class NotificationServices: Sendable {
    let worker: NotificationWorker
    let streams: NotificationStreams
    let deliveries: PushDeliveries
    let vapid: VAPIDKeys
    let policy: PushEndpointPolicy
    let languages: NotificationLanguages

    init(
        _ configuration: NotificationConfiguration, stores: ServiceStores, events: EventLog, dataDirectory: URL,
        sharedSecret: ServiceSecret?, now: @escaping @Sendable () -> Timestamp
    ) throws {
        let vapid =
            try configuration.vapidKeys ?? Self.vapidKeys(dataDirectory: dataDirectory, sharedSecret: sharedSecret)
        self.vapid = vapid
        policy = PushEndpointPolicy(
            extraHosts: configuration.pushEndpointHosts, allowHTTP: configuration.pushAllowsHTTP)
        let pushSignal = EventSignal()
        worker = NotificationWorker(store: stores.notifications, events: events, applied: { pushSignal.ring() })
        streams = NotificationStreams(
            store: stores.notifications, events: events, perUser: configuration.streamsPerUser,
            total: configuration.maxStreams, heartbeat: configuration.heartbeat, now: now)
        deliveries = PushDeliveries(
            store: stores.push, notifications: stores.notifications,
            sender: PushSender(
                client: PushSender.sharedClient, vapid: vapid, subject: configuration.vapidSubject,
                timeout: configuration.pushTimeout),
            signal: pushSignal, retryBase: configuration.pushRetryBase, now: now,
            logger: Logger(label: "burgermap.push"))
        languages = NotificationLanguages(store: stores.notifications)
    }

    /// `BURGERMAP_VAPID_PRIVATE_KEY` when set; else, when the operator gave the service its
    /// secret (`BURGERMAP_SECRET`, which instances of one PostgreSQL database share), a key
    /// derived from it, so that every instance signs with the key browsers subscribed to; else
    /// the data folder's key, made on first start.
    static func vapidKeys(dataDirectory: URL, sharedSecret: ServiceSecret?) throws -> VAPIDKeys {
        let environment = ProcessInfo.processInfo.environment
        if environment[VAPIDKeys.environmentVariable]?.isEmpty == false || sharedSecret == nil {
            return try VAPIDKeys.load(environment: environment, folder: dataDirectory)
        }
        let scalar = sharedSecret!.derivedKey(purpose: "vapid-p256").withUnsafeBytes { Array($0) }
        return VAPIDKeys(privateKey: try P256.Signing.PrivateKey(rawRepresentation: scalar))
    }

    /// Runs the worker, the streams' reader and the push deliveries until cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.worker.run() }
            group.addTask { await self.streams.run() }
            group.addTask { await self.deliveries.run() }
        }
    }

    /// Applies every event written so far (tests: no waiting for the worker's wake-up).
    public func catchUp() async throws {
        try await worker.catchUp()
    }

    /// Sends the push deliveries due now (tests).
    @discardableResult
    public func deliverDuePushes() async -> Int {
        await deliveries.deliverDue()
    }
}

/// Runs `NotificationServices` beside the HTTP server.
struct NotificationService: Service {
    let services: NotificationServices

    func run() async throws {
        await cancelWhenGracefulShutdown { await services.run() }
    }
}
