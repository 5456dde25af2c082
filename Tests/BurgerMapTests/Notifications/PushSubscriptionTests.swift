import BurgerMap
import BurgerMapCore
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// A push service on a loopback socket: records each POST and answers the statuses queued.
final class LoopbackPushService: Sendable {
    struct Received: Sendable {
        var path: String
        var headers: [String: String]
        var body: [UInt8]
    }

    let received = Mutex<[Received]>([])
    let answers = Mutex<[(HTTPResponse.Status, String?)]>([])

    var router: Router<BasicRequestContext> {
        let router = Router()
        router.post("/push/:id") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 64 * 1024)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            self.received.withLock {
                $0.append(Received(path: request.uri.path, headers: headers, body: Array(body.readableBytesView)))
            }
            let (status, retryAfter) = self.answers.withLock { $0.isEmpty ? (.created, nil) : $0.removeFirst() }
            var response = Response(status: status)
            if let retryAfter { response.headers[.retryAfter] = retryAfter }
            return response
        }
        return router
    }
}

@Suite("Web Push: subscriptions, the endpoint guard, encrypted deliveries", .timeLimit(.minutes(10)))
struct PushSubscriptionTests {
    @Test(
        "a like is pushed once, encrypted for the browser, in its language; 429 is retried and 410 removes the subscription",
        arguments: StoreEngine.available)
    func delivery(engine: StoreEngine) async throws {
        let pushService = LoopbackPushService()
        let receiver = Application(
            router: pushService.router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await receiver.test(.live) { receiverClient in
            let receiverPort = try #require(receiverClient.port)
            let environment = try await TestEnvironment(engine)
            environment.configuration.notifications.pushEndpointHosts = ["127.0.0.1:\(receiverPort)"]
            environment.configuration.notifications.pushAllowsHTTP = true
            environment.configuration.notifications.pushRetryBase = .milliseconds(1)
            let dependencies = try await buildDependencies(
                environment.configuration, stores: environment.stores, media: environment.media)
            try await environment.withClient { client in
                let alice = try await client.member("alice")
                let bob = try await client.member("bob")
                let vapid = try json(try await client.send(.get, "/v1/push/vapid-public-key"))
                let keyText = try #require(vapid["key"] as? String)
                let serverKey = try #require(Base64URL.decode(keyText))
                #expect(serverKey.count == 65)

                let browserKey = P256.KeyAgreement.PrivateKey()
                let authSecret = (0..<16).map { UInt8($0 * 7) }
                let endpoint = "http://127.0.0.1:\(receiverPort)/push/alice-phone"
                let keys = [
                    "p256dh": Base64URL.encode(browserKey.publicKey.x963Representation),
                    "auth": Base64URL.encode(authSecret),
                ]
                let created = try await client.send(
                    .post, "/v1/push/subscriptions", json: ["endpoint": endpoint, "keys": keys], token: alice.token,
                    language: "ko-KR,ko;q=0.9")
                #expect(created.status == .created)
                let subscription = try json(created)
                #expect(created.headers[.location] == "/v1/push/subscriptions/\(subscription["id"] as? NSNumber ?? 0)")
                #expect(subscription["endpoint"] as? String == endpoint)
                let again = try await client.send(
                    .post, "/v1/push/subscriptions", json: ["endpoint": endpoint, "keys": keys], token: alice.token,
                    language: "ko")
                #expect(again.status == .ok)
                #expect((try json(again)["id"] as? NSNumber) == (subscription["id"] as? NSNumber))

                let place = try await client.addPlace("Push Burger", token: alice.token)
                let review = try await client.reviewID(place: place, token: alice.token)
                #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: alice.token).status == .ok)
                #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: bob.token).status == .ok)
                try await dependencies.notifications.catchUp()
                #expect(await dependencies.notifications.deliverDuePushes() == 1)
                #expect(await dependencies.notifications.deliverDuePushes() == 0)
                let push = try #require(pushService.received.withLock { $0.first })
                #expect(pushService.received.withLock { $0.count } == 1)
                #expect(push.path == "/push/alice-phone")
                #expect(push.headers["content-encoding"] == "aes128gcm")
                #expect(push.headers["ttl"] == "86400")
                #expect(push.headers["urgency"] == "normal")
                let authorization = try #require(push.headers["authorization"])
                #expect(authorization.hasPrefix("vapid t="))
                #expect(authorization.hasSuffix(", k=\(Base64URL.encode(serverKey))"))
                let plaintext = try decryptPushMessage(push.body, userAgentKey: browserKey, authSecret: authSecret)
                let payload = try #require(
                    try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any])
                #expect(payload["type"] as? String == "like")
                #expect(payload["title"] as? String == "새 좋아요")
                #expect(payload["body"] as? String == "bob님이 리뷰를 좋아합니다")
                #expect(payload["url"] as? String == "/v1/reviews/\(review)")
                let listed = try await client.notifications(token: alice.token).1["items"] as? [[String: Any]]
                #expect((payload["notification_id"] as? NSNumber) == (listed?.first?["id"] as? NSNumber))

                // 429 with Retry-After: tried again; then 410: the subscription is gone.
                pushService.answers.withLock { $0 = [(.tooManyRequests, "0"), (.created, nil), (.gone, nil)] }
                _ = try await client.commentID(review: review, text: "Thanks!", token: bob.token)
                try await dependencies.notifications.catchUp()
                #expect(await dependencies.notifications.deliverDuePushes() == 1)
                var delivered = 0
                let deadline = ContinuousClock.now + .seconds(10)
                while delivered == 0, ContinuousClock.now < deadline {
                    delivered = await dependencies.notifications.deliverDuePushes()
                    if delivered == 0 { await Task.yield() }
                }
                #expect(pushService.received.withLock { $0.count } == 3)
                #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: bob.token).status == .ok)
                try await dependencies.notifications.catchUp()
                #expect(await dependencies.notifications.deliverDuePushes() == 1)
                let remaining = try json(try await client.send(.get, "/v1/push/subscriptions", token: alice.token))
                #expect((remaining["items"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test(
        "endpoints outside the known push services, bad keys and foreign subscriptions are refused",
        arguments: StoreEngine.available)
    func guards(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let keys = [
                "p256dh": Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation),
                "auth": Base64URL.encode([UInt8](repeating: 9, count: 16)),
            ]
            for endpoint in [
                "https://evil.example/push", "http://127.0.0.1:9/push", "https://fcm.googleapis.com.evil.example/x",
                "https://user:pw@fcm.googleapis.com/x", "ftp://fcm.googleapis.com/x", "not a url",
            ] {
                let response = try await client.send(
                    .post, "/v1/push/subscriptions", json: ["endpoint": endpoint, "keys": keys], token: alice.token)
                #expect(response.status == .badRequest, "\(endpoint)")
                #expect((try json(response)["errors"] as? [[String: Any]])?.first?["field"] as? String == "endpoint")
            }
            let badKeys = try await client.send(
                .post, "/v1/push/subscriptions",
                json: [
                    "endpoint": "https://fcm.googleapis.com/fcm/send/a", "keys": ["p256dh": "AAAA", "auth": "BBBB"],
                ],
                token: alice.token)
            #expect(badKeys.status == .badRequest)

            // Eleven subscriptions: the oldest gives way.
            var ids: [Int64] = []
            for index in 0...PushLimits.subscriptionsPerUser {
                let response = try await client.send(
                    .post, "/v1/push/subscriptions",
                    json: ["endpoint": "https://fcm.googleapis.com/fcm/send/device-\(index)", "keys": keys],
                    token: alice.token)
                #expect(response.status == .created)
                ids.append(try #require((try json(response)["id"] as? NSNumber)?.int64Value))
            }
            let listed = try json(try await client.send(.get, "/v1/push/subscriptions", token: alice.token))
            let listedIDs = (listed["items"] as? [[String: Any]] ?? []).compactMap {
                ($0["id"] as? NSNumber)?.int64Value
            }
            #expect(listedIDs == Array(ids.dropFirst()))
            #expect(
                try await client.send(.delete, "/v1/push/subscriptions/\(ids[1])", token: bob.token).status
                    == .notFound)
            #expect(
                try await client.send(.delete, "/v1/push/subscriptions/\(ids[1])", token: alice.token).status
                    == .noContent)
            #expect(try await client.send(.post, "/v1/push/subscriptions", json: [:]).status == .unauthorized)
        }
    }
}
