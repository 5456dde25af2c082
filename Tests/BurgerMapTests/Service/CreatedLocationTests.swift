import BurgerMap
import BurgerMapCore
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Yams

/// Every `201` answer names the created resource in `Location`, and a `GET` there answers it.
@Suite("Location of created resources")
struct CreatedLocationTests {
    /// The operations the served OpenAPI document lists with a `201` answer, as `POST /v1/places`.
    static func documentedCreations(_ client: some TestClientProtocol) async throws -> Set<String> {
        let text = String(buffer: try await client.execute(uri: "/openapi.yaml", method: .get).body)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var creations: Set<String> = []
        for (path, operations) in paths {
            for (method, operation) in operations {
                let responses = (operation as? [String: Any])?["responses"] as? [String: Any]
                if responses?["201"] != nil { creations.insert("\(method.uppercased()) \(path)") }
            }
        }
        return creations
    }

    /// Checks `response` is a `201` whose `Location` is `prefix/{id}` and that a `GET` there
    /// answers the created object: the same `id` and the same values of `fields`.
    static func expectResolves(
        _ client: some TestClientProtocol, _ response: TestResponse, prefix: String, fields: [String],
        created: [String: Any]
    ) async throws {
        #expect(response.status == .created)
        let location = try #require(response.headers[.location])
        let id = try #require((created["id"] as? NSNumber)?.int64Value)
        #expect(location == "\(prefix)/\(id)")
        let fetched = try await client.execute(uri: location, method: .get)
        #expect(fetched.status == .ok, "GET \(location)")
        let object = try json(fetched)
        #expect((object["id"] as? NSNumber)?.int64Value == id)
        for field in fields {
            #expect("\(object[field] ?? "missing")" == "\(created[field] ?? "missing")", "\(location) \(field)")
        }
    }

    @Test(
        "every documented 201 route answers a Location that GET resolves to the same resource",
        arguments: StoreEngine.available)
    func everyCreation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            var walked: Set<String> = []

            let registered = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "maker@example.com", "password": "correct horse battery", "nickname": "maker"])
            let account = try json(registered)
            let token = try tokens(account).access
            let user = try #require(account["user"] as? [String: Any])
            try await Self.expectResolves(
                client, registered, prefix: "/v1/users", fields: ["nickname", "created_at"], created: user)
            walked.insert("POST /v1/auth/register")

            let placeAnswer = try await client.send(
                .post, "/v1/places", json: ["name": "Location Burger", "lat": 37.5, "lng": 127.0], token: token)
            let place = try json(placeAnswer)
            try await Self.expectResolves(
                client, placeAnswer, prefix: "/v1/places", fields: ["name", "lat", "lng", "created_at"], created: place)
            walked.insert("POST /v1/places")
            let placeID = try #require((place["id"] as? NSNumber)?.int64Value)

            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "review-1"]
            let reviewAnswer = try await client.postReview(place: placeID, token: token, headers: key)
            let review = try json(reviewAnswer)
            try await Self.expectResolves(
                client, reviewAnswer, prefix: "/v1/reviews", fields: ["text", "rating", "created_at"], created: review)
            // The stored first answer, replayed, names the same review.
            let replayed = try await client.postReview(place: placeID, token: token, headers: key)
            #expect(replayed.status == .created)
            #expect(replayed.headers[.location] == reviewAnswer.headers[.location])
            walked.insert("POST /v1/places/{id}/reviews")
            let reviewID = try #require((review["id"] as? NSNumber)?.int64Value)

            let commentAnswer = try await client.send(
                .post, "/v1/reviews/\(reviewID)/comments", json: ["text": "Agreed."], token: token)
            let comment = try json(commentAnswer)
            try await Self.expectResolves(
                client, commentAnswer, prefix: "/v1/comments", fields: ["text", "review_id", "created_at"],
                created: comment)
            walked.insert("POST /v1/reviews/{id}/comments")

            // A push subscription is its owner's alone: read back with the same token.
            let browser = Crypto.P256.KeyAgreement.PrivateKey().publicKey.x963Representation
            let subscribed = try await client.send(
                .post, "/v1/push/subscriptions",
                json: [
                    "endpoint": "https://fcm.googleapis.com/fcm/send/location-test",
                    "keys": [
                        "p256dh": Base64URL.encode(browser), "auth": Base64URL.encode([UInt8](repeating: 1, count: 16)),
                    ],
                ], token: token)
            #expect(subscribed.status == .created)
            let subscription = try json(subscribed)
            let location = try #require(subscribed.headers[.location])
            #expect(location == "/v1/push/subscriptions/\(subscription["id"] as? NSNumber ?? 0)")
            let fetched = try json(try await client.send(.get, location, token: token))
            #expect(fetched["endpoint"] as? String == subscription["endpoint"] as? String)
            #expect(try await client.send(.get, location).status == .unauthorized)
            walked.insert("POST /v1/push/subscriptions")

            #expect(walked == (try await Self.documentedCreations(client)))

            // Answers that create nothing carry no Location: the same place again is a 200.
            let existing = try await client.send(
                .post, "/v1/places",
                json: ["name": "Twice", "lat": 37.5, "lng": 127.0, "source": "s", "external_id": "1"], token: token)
            #expect(existing.status == .created)
            let again = try await client.send(
                .post, "/v1/places",
                json: ["name": "Twice", "lat": 37.5, "lng": 127.0, "source": "s", "external_id": "1"], token: token)
            #expect(again.status == .ok)
            #expect(again.headers[.location] == nil)
        }
    }

    @Test("GET /v1/comments/{id}: the comment, or 404 not_found", arguments: StoreEngine.available)
    func showComment(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let missing = try await client.execute(uri: "/v1/comments/424242", method: .get)
            #expect(missing.status == .notFound)
            #expect(try problemCode(missing) == "not_found")
            let invalid = try await client.execute(uri: "/v1/comments/abc", method: .get)
            #expect(invalid.status == .notFound || invalid.status == .badRequest)
        }
    }
}
