import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Inputs where the service and its OpenAPI document once disagreed (found by Schemathesis):
/// each test pins the answer the document now gives.
@Suite("Inputs as the OpenAPI document describes them")
struct DocumentedInputTests {
    @Test(
        "a query parameter sent with an empty value (or no `=`) is 400 validation_failed naming it",
        arguments: StoreEngine.available,
        [
            ("/v1/reviews?limit=", "limit", "not_an_integer"),
            ("/v1/places/nearby?lat=&lng=2", "lat", "not_a_number"),
            ("/v1/places/nearby?lat=1&lng=2&radius_m=", "radius_m", "not_a_number"),
            // A name without `=` is the same empty value (found by the `query` fuzz target).
            ("/v1/places/nearby?lat=1&lng=2&radius_m&limit=5", "radius_m", "not_a_number"),
            ("/v1/places/nearby?lat=1&lng=2&reviewed_only=", "reviewed_only", "not_a_boolean"),
            ("/v1/places/nearby?lat=1&lng=2&min_rating=", "min_rating", "not_a_number"),
            ("/v1/places/nearby?lat=1&lng=2&category=", "category", "empty"),
            ("/v1/places?bbox=1,2,3,4&limit=", "limit", "not_an_integer"),
        ])
    func emptyQueryValue(engine: StoreEngine, query: (String, String, String)) async throws {
        let (uri, field, code) = query
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(uri: uri, method: .get)
            #expect(response.status == .badRequest)
            #expect(try problemCode(response) == "validation_failed")
            let errors = try #require(try json(response)["errors"] as? [[String: Any]])
            #expect(errors.map { $0["field"] as? String } == [field])
            #expect(errors.map { $0["code"] as? String } == [code])
        }
    }

    @Test("an empty cursor is 400 invalid_cursor; leaving it out is the first page", arguments: StoreEngine.available)
    func emptyCursor(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let empty = try await client.execute(uri: "/v1/reviews?cursor=", method: .get)
            #expect(empty.status == .badRequest)
            #expect(try problemCode(empty) == "invalid_cursor")
            let absent = try await client.execute(uri: "/v1/reviews", method: .get)
            #expect(absent.status == .ok)
        }
    }

    @Test("null for a review's rating or text is 400 not_null and changes nothing", arguments: StoreEngine.available)
    func nullInReviewPatch(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try await client.reviewID(place: place, text: "Juicy.", token: alice.token)
            for field in ["text", "rating"] {
                let response = try await client.send(
                    .patch, "/v1/reviews/\(review)", json: [field: NSNull()], token: alice.token)
                #expect(response.status == .badRequest)
                let errors = try #require(try json(response)["errors"] as? [[String: Any]])
                #expect(errors.map { $0["field"] as? String } == [field])
                #expect(errors.map { $0["code"] as? String } == ["not_null"])
            }
            let stored = try json(try await client.send(.get, "/v1/reviews/\(review)"))
            #expect(stored["text"] as? String == "Juicy.")
        }
    }

    @Test("PATCH /v1/users/me: a null bio clears it, a null nickname is 400 not_null", arguments: StoreEngine.available)
    func nullInProfilePatch(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let set = try await client.send(.patch, "/v1/users/me", json: ["bio": "Smash fan"], token: alice.token)
            #expect(try json(set)["bio"] as? String == "Smash fan")
            let cleared = try await client.send(.patch, "/v1/users/me", json: ["bio": NSNull()], token: alice.token)
            #expect(cleared.status == .ok)
            #expect(try json(cleared)["bio"] is NSNull)
            let nickname = try await client.send(
                .patch, "/v1/users/me", json: ["nickname": NSNull()], token: alice.token)
            #expect(nickname.status == .badRequest)
            let errors = try #require(try json(nickname)["errors"] as? [[String: Any]])
            #expect(errors.map { $0["code"] as? String } == ["not_null"])
        }
    }

    @Test(
        "unfollowing yourself answers following false; following yourself stays 400", arguments: StoreEngine.available)
    func unfollowYourself(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let unfollow = try await client.send(.delete, "/v1/users/\(alice.id)/follow", token: alice.token)
            #expect(unfollow.status == .ok)
            #expect(try json(unfollow)["following"] as? Bool == false)
            #expect(try json(unfollow)["follower_count"] as? Int == 0)
            let follow = try await client.send(.put, "/v1/users/\(alice.id)/follow", token: alice.token)
            #expect(follow.status == .badRequest)
            #expect(try problemCode(follow) == "validation_failed")
        }
    }

    @Test(
        "a request reusing an Idempotency-Key with an invalid form gets its own 400, not the replay",
        arguments: StoreEngine.available)
    func idempotencyKeyWithInvalidForm(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "upload-1"]
            let first = try await client.postReview(place: place, token: alice.token, headers: key)
            #expect(first.status == .created)
            let invalid = try await client.postReview(place: place, rating: "9", token: alice.token, headers: key)
            #expect(invalid.status == .badRequest)
            let errors = try #require(try json(invalid)["errors"] as? [[String: Any]])
            #expect(errors.map { $0["field"] as? String } == ["rating"])
            #expect(try await environment.reviewRowCounts().reviews == 1)
        }
    }

    @Test(
        "review form parts with other names are ignored, even repeated or not UTF-8", arguments: StoreEngine.available)
    func otherPartsIgnored(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            var form = MultipartBody()
            form.field("rating", "4")
            form.field("text", "Crispy edges.")
            form.field("note", "one")
            form.field("note", "two")
            form.raw("--\(form.boundary)\r\nContent-Disposition: form-data; name=\"blob\"\r\n\r\n")
            form.raw(bytes: [0xFF, 0xFE, 0x0D, 0x0A])
            let response = try await client.upload(.post, "/v1/places/\(place)/reviews", form, token: alice.token)
            #expect(response.status == .created)
            #expect(try json(response)["rating"] as? Int == 4)
        }
    }

    @Test("a comment within 1000 characters but over 1000 code points is too_long", arguments: StoreEngine.available)
    func commentCodePoints(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)
            // "~🏻" is one character of two code points: 1000 characters, 1001 code points.
            let text = "~🏻" + String(repeating: "a", count: 999)
            let response = try await client.send(
                .post, "/v1/reviews/\(review)/comments", json: ["text": text], token: alice.token)
            #expect(response.status == .badRequest)
            let errors = try #require(try json(response)["errors"] as? [[String: Any]])
            #expect(errors.map { $0["code"] as? String } == ["too_long"])
            let fits = try await client.send(
                .post, "/v1/reviews/\(review)/comments", json: ["text": String(text.dropLast())],
                token: alice.token)
            #expect(fits.status == .created)
        }
    }
}
