import BurgerMap
import BurgerMapCore
import Foundation
import HummingbirdTesting
import Testing

@Suite("Viewport search")
struct ViewportTests {
    @Test(
        "a box crossing the antimeridian finds places on both sides and nothing else", arguments: StoreEngine.available)
    func antimeridian(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let inside = try await environment.insert([
            PlaceDraft(name: "Fiji East", lat: -17.8, lng: 179.5),
            PlaceDraft(name: "Fiji West", lat: -17.9, lng: -179.6),
            PlaceDraft(name: "On the line", lat: -17.0, lng: 180),
        ])
        try await environment.insert([
            PlaceDraft(name: "Too far west", lat: -17.8, lng: 178.9),
            PlaceDraft(name: "Too far east", lat: -17.8, lng: -178.9),
            PlaceDraft(name: "Too far south", lat: -19.5, lng: 179.5),
        ])
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/v1/places?bbox=179,-19,-179,-16", method: .get)
            #expect(response.status == .ok)
            let body = try json(response)
            let ids = try #require(body["items"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
            #expect(Set(ids) == Set(inside.map { Int($0.id) }))
            #expect(body["truncated"] as? Bool == false)
        }
    }

    @Test(
        "more places than the limit: truncated, and the answer is exactly limit places",
        arguments: StoreEngine.available
    )
    func truncation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(
            (0..<12).map { PlaceDraft(name: "V\($0)", lat: 50 + Double($0) * 0.01, lng: 8) })
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/v1/places?bbox=7,49,9,51&limit=5", method: .get)
            let body = try json(response)
            let ids = try #require(body["items"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
            // No reviews yet: equally reviewed places come in id order.
            #expect(ids == places.prefix(5).map { Int($0.id) })
            #expect(body["truncated"] as? Bool == true)
            let all = try json(try await client.execute(uri: "/v1/places?bbox=7,49,9,51", method: .get))
            #expect((all["items"] as? [Any])?.count == 12 && all["truncated"] as? Bool == false)
        }
    }

    @Test("malformed boxes and limits are 400 validation_failed on the field", arguments: StoreEngine.available)
    func validation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            for (query, field) in [
                ("", "bbox"), ("bbox=1,2,3", "bbox"), ("bbox=a,b,c,d", "bbox"), ("bbox=1,2,3,4,5", "bbox"),
                ("bbox=0,10,1,5", "bbox"), ("bbox=-181,0,0,1", "bbox"), ("bbox=0,-91,1,1", "bbox"),
                ("bbox=0,0,1,1&limit=2001", "limit"), ("bbox=0,0,1,1&limit=0", "limit"),
            ] {
                let response = try await client.execute(uri: "/v1/places?\(query)", method: .get)
                #expect(response.status == .badRequest, "\(query)")
                let body = try json(response)
                #expect(body["code"] as? String == "validation_failed")
                let errors = try #require(body["errors"] as? [[String: Any]])
                #expect(errors.first?["field"] as? String == field, "\(query)")
            }
        }
    }
}
