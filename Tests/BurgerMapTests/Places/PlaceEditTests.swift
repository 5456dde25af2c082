import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMapSQLite

@Suite("Changing and deleting places")
struct PlaceEditTests {
    @Test(
        "the creator's PATCH changes the place: moved, renamed, website set, phone cleared; nearby finds it there",
        arguments: StoreEngine.available)
    func creatorCorrectsPlace(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let created = try await client.send(
                .post, "/v1/places",
                json: [
                    "name": "Patty Lab", "lat": 37.5, "lng": 127.0, "phone": "02-123",
                    "website": "https://patty.example",
                ], token: alice.token)
            #expect(created.status == .created)
            let createdBody = try json(created)
            #expect(createdBody["website"] as? String == "https://patty.example")
            let id = try #require((createdBody["id"] as? NSNumber)?.int64Value)

            let patched = try await client.send(
                .patch, "/v1/places/\(id)",
                json: [
                    "name": " Patty Lab Seongsu ", "lat": 37.544, "lng": 127.056, "phone": NSNull(),
                    "category": "burger", "website": "http://seongsu.patty.example",
                ],
                token: alice.token)
            #expect(patched.status == .ok, "\(String(buffer: patched.body))")
            let body = try json(patched)
            #expect(body["name"] as? String == "Patty Lab Seongsu")
            #expect(body["lat"] as? Double == 37.544 && body["lng"] as? Double == 127.056)
            #expect(body["phone"] is NSNull)
            #expect(body["category"] as? String == "burger")
            #expect(body["website"] as? String == "http://seongsu.patty.example")

            let shown = try json(try await client.send(.get, "/v1/places/\(id)"))
            #expect(shown["name"] as? String == "Patty Lab Seongsu" && shown["category"] as? String == "burger")
            let oldSpot = try json(
                try await client.send(.get, "/v1/places/nearby?lat=37.5&lng=127.0&radius_m=500"))
            #expect((oldSpot["items"] as? [Any])?.isEmpty == true)
            let newSpot = try json(
                try await client.send(.get, "/v1/places/nearby?lat=37.544&lng=127.056&radius_m=500&category=burger"))
            #expect(ids(try #require(newSpot["items"] as? [[String: Any]])) == [id])
        }
    }

    @Test(
        "a PATCH that leaves fields out keeps them; bad fields are 400 naming each, and nothing changes",
        arguments: StoreEngine.available)
    func partialAndInvalidPatch(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let id = try await client.addPlace("Patty Lab", token: alice.token)
            let renamed = try json(
                try await client.send(.patch, "/v1/places/\(id)", json: ["address": "1 Main St"], token: alice.token))
            #expect(renamed["name"] as? String == "Patty Lab" && renamed["address"] as? String == "1 Main St")
            #expect(renamed["lat"] as? Double == 37.5)

            let bad = try await client.send(
                .patch, "/v1/places/\(id)",
                json: ["name": "", "lat": 91, "website": "javascript:alert(1)", "lng": NSNull()], token: alice.token)
            #expect(bad.status == .badRequest)
            let problem = try json(bad)
            #expect(problem["code"] as? String == "validation_failed")
            let fields = (problem["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
            #expect(fields == ["lng"], "null for a required field is refused first")

            let invalid = try await client.send(
                .patch, "/v1/places/\(id)", json: ["name": "", "lat": 91, "website": "javascript:alert(1)"],
                token: alice.token)
            let errors = try #require(try json(invalid)["errors"] as? [[String: Any]])
            #expect(Set(errors.compactMap { $0["field"] as? String }) == ["name", "lat", "website"])
            #expect(errors.contains { $0["code"] as? String == "not_web_address" })
            let unchanged = try json(try await client.send(.get, "/v1/places/\(id)"))
            #expect(unchanged["name"] as? String == "Patty Lab" && unchanged["website"] is NSNull)
        }
    }

    @Test("another user's PATCH or DELETE is 403, a missing place 404, no token 401", arguments: StoreEngine.available)
    func onlyTheCreator(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let imported = try await environment.insert([PlaceDraft(name: "Imported", lat: 1, lng: 1, source: "osm")])
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let id = try await client.addPlace("Patty Lab", token: alice.token)
            for (method, body) in [(HTTPRequest.Method.patch, ["name": "Mine"]), (.delete, nil)]
                as [(HTTPRequest.Method, [String: Any]?)]
            {
                let other = try await client.send(method, "/v1/places/\(id)", json: body, token: bob.token)
                #expect(other.status == .forbidden)
                #expect(try problemCode(other) == "forbidden")
                let importedPlace = try await client.send(
                    method, "/v1/places/\(imported[0].id)", json: body, token: alice.token)
                #expect(importedPlace.status == .forbidden)
                let missing = try await client.send(method, "/v1/places/999999", json: body, token: alice.token)
                #expect(missing.status == .notFound)
                let anonymous = try await client.send(method, "/v1/places/\(id)", json: body)
                #expect(anonymous.status == .unauthorized)
            }
            let shown = try json(try await client.send(.get, "/v1/places/\(id)"))
            #expect(shown["name"] as? String == "Patty Lab")
        }
    }

    @Test(
        "DELETE removes a place without reviews (204, then 404); one with reviews is 409 and stays",
        arguments: StoreEngine.available)
    func deleteUnlessReviewed(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bare = try await client.addPlace("Duplicate", token: alice.token)
            let reviewed = try await client.addPlace("Patty Lab", token: alice.token)
            _ = try await client.reviewID(place: reviewed, token: alice.token)

            let deleted = try await client.send(.delete, "/v1/places/\(bare)", token: alice.token)
            #expect(deleted.status == .noContent)
            #expect(try await client.send(.get, "/v1/places/\(bare)").status == .notFound)
            #expect(try await client.send(.delete, "/v1/places/\(bare)", token: alice.token).status == .notFound)

            let refused = try await client.send(.delete, "/v1/places/\(reviewed)", token: alice.token)
            #expect(refused.status == .conflict)
            let problem = try json(refused)
            #expect(problem["code"] as? String == "conflict")
            #expect((problem["detail"] as? String)?.contains("1 review") == true)
            #expect(try await client.send(.get, "/v1/places/\(reviewed)").status == .ok)
            let reviews = try json(try await client.send(.get, "/v1/places/\(reviewed)/reviews"))
            #expect((reviews["items"] as? [Any])?.count == 1)
        }
    }

    @Test("the schema itself refuses to delete a place that has reviews", arguments: StoreEngine.available)
    func schemaKeepsReviewedPlaces(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            _ = try await client.reviewID(place: place, token: alice.token)
            await #expect(throws: (any Error).self) {
                try await environment.execute("DELETE FROM places WHERE id = \(place)")
            }
            #expect(try await environment.rowCount("reviews") == 1)
        }
    }

    @Test(
        "website: http(s) addresses in any case are kept, also with marks after the slashes; others are 400",
        arguments: [
            ("https://patty.example/menu", true), ("HTTP://PATTY.EXAMPLE", true), ("  http://patty.example  ", true),
            ("https://\u{1F3FB}patty.example", true), ("http://e\u{0301}.example", true), ("", true),
            ("javascript:alert(1)", false), ("http:///path", false), ("http://", false),
            ("http://patty example", false), ("http://patty\u{3000}example", false), ("ftp://patty.example", false),
            ("www.patty.example", false),
        ])
    func websiteRule(website: String, accepted: Bool) async throws {
        let environment = try TestEnvironment()
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let response = try await client.send(
                .post, "/v1/places", json: ["name": "Patty Lab", "lat": 1, "lng": 1, "website": website],
                token: alice.token)
            #expect(response.status == (accepted ? .created : .badRequest), "\(website.debugDescription)")
            let body = try json(response)
            if accepted {
                let stored = website.trimmingCharacters(in: .whitespaces)
                #expect(body["website"] as? String == (stored.isEmpty ? nil : stored))
            } else {
                let errors = try #require(body["errors"] as? [[String: Any]])
                #expect(errors.map { $0["code"] as? String } == ["not_web_address"])
            }
        }
    }
}
