import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMapSQLite

@Suite("Profiles and adding places")
struct ProfileAndPlaceCreationTests {
    @Test(
        "PATCH /v1/users/me changes nickname and bio, keeps nicknames unique, validates",
        arguments: StoreEngine.available)
    func updateProfile(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let access = try tokens(try await client.register(email: "p@example.com", nickname: "pat")).access
            _ = try await client.register(email: "q@example.com", nickname: "quinn")
            let changed = try await client.send(
                .patch, "/v1/users/me", json: ["nickname": "patty", "bio": "Burgers, mostly.\nAnd fries."],
                token: access)
            #expect(changed.status == .ok)
            #expect(try json(changed)["nickname"] as? String == "patty")
            #expect(try json(changed)["bio"] as? String == "Burgers, mostly.\nAnd fries.")
            #expect(try json(changed)["email"] as? String == "p@example.com")

            let taken = try await client.send(.patch, "/v1/users/me", json: ["nickname": "QUINN"], token: access)
            #expect(taken.status == .conflict)
            let tooLong = try await client.send(
                .patch, "/v1/users/me", json: ["bio": String(repeating: "b", count: 501)], token: access)
            #expect(try problemCode(tooLong) == "validation_failed")
            let cleared = try await client.send(.patch, "/v1/users/me", json: ["bio": ""], token: access)
            #expect(try json(cleared)["bio"] is NSNull)
            #expect(try json(cleared)["nickname"] as? String == "patty")
            let anonymous = try await client.send(.patch, "/v1/users/me", json: ["bio": "x"])
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate] == "Bearer")
        }
    }

    @Test(
        "POST /v1/places needs a user, records them, and answers the stored place for a known source id",
        arguments: StoreEngine.available)
    func createPlace(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let place: [String: Any] = [
                "name": "  Han River Burgers ", "lat": 37.52, "lng": 126.94, "source": "app", "external_id": "hr-1",
                "phone": "",
            ]
            let anonymous = try await client.send(.post, "/v1/places", json: place)
            #expect(anonymous.status == .unauthorized)
            #expect(try problemCode(anonymous) == "unauthorized")

            let body = try await client.register(email: "c@example.com", nickname: "creator")
            let access = try tokens(body).access
            let userID = try #require((body["user"] as? [String: Any])?["id"] as? Int)
            let created = try await client.send(.post, "/v1/places", json: place, token: access)
            #expect(created.status == .created)
            let stored = try json(created)
            #expect(stored["name"] as? String == "Han River Burgers")
            #expect(stored["phone"] is NSNull && stored["review_count"] as? Int == 0)
            let id = try #require(stored["id"] as? Int)

            let again = try await client.send(.post, "/v1/places", json: place, token: access)
            #expect(again.status == .ok)
            #expect(try json(again)["id"] as? Int == id)

            let createdBy = try await environment.int("SELECT created_by FROM places WHERE id = \(id)")
            #expect(createdBy.map(Int.init) == userID)
            let nearby = try await client.send(.get, "/v1/places/nearby?lat=37.52&lng=126.94&radius_m=10")
            #expect((try json(nearby)["items"] as? [[String: Any]])?.map { $0["id"] as? Int } == [id])

            let invalid = try await client.send(
                .post, "/v1/places", json: ["name": "", "lat": 91, "lng": "east"], token: access)
            #expect(invalid.status == .badRequest)
            #expect(try problemCode(invalid) == "validation_failed")
            let outOfRange = try await client.send(
                .post, "/v1/places", json: ["name": "Edge", "lat": 91, "lng": -181], token: access)
            let fields = (try json(outOfRange)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(fields == ["lat", "lng"])
            #expect(try await environment.rowCount("places") == 1)
        }
    }
}
