import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Place routes")
struct PlacesRoutesTests {
    @Test(
        "nearby pages follow next_cursor and the Link header to the end, each place once",
        arguments: StoreEngine.available)
    func nearbyPaging(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(
            (0..<25).map { PlaceDraft(name: "Burger \($0)", lat: 37.5 + Double($0) * 0.0005, lng: 127.0) })
        try await environment.withClient { client in
            var uri = "/v1/places/nearby?lat=37.5&lng=127.0&radius_m=5000&limit=10"
            var seen: [Int] = []
            var pages = 0
            while true {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok)
                let body = try json(response)
                let items = try #require(body["items"] as? [[String: Any]])
                seen += items.compactMap { $0["id"] as? Int }
                #expect(items.allSatisfy { $0["distance_m"] is Double && $0["review_count"] as? Int == 0 })
                #expect(items.allSatisfy { $0["rating_avg"] is NSNull && $0["cover_photo_url"] is NSNull })
                pages += 1
                guard let cursor = body["next_cursor"] as? String else {
                    #expect(response.headers[HTTPField.Name("Link")!] == nil)
                    break
                }
                let link = try #require(response.headers[HTTPField.Name("Link")!])
                #expect(link.hasSuffix("; rel=\"next\""))
                #expect(
                    link.contains("cursor=\(cursor)") && link.contains("radius_m=5000") && link.contains("limit=10"))
                uri = String(link.dropFirst().prefix { $0 != ">" })
            }
            #expect(pages == 3)
            #expect(seen == places.map { Int($0.id) })
        }
    }

    @Test("bad nearby parameters are 400 validation_failed naming each field", arguments: StoreEngine.available)
    func nearbyValidation(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let cases: [(String, Set<String>)] = [
                ("lat=91&lng=0", ["lat"]),
                ("lat=abc&lng=0", ["lat"]),
                ("lng=0", ["lat"]),
                ("lat=0&lng=180.5", ["lng"]),
                ("lat=0&lng=0&radius_m=0", ["radius_m"]),
                ("lat=0&lng=0&radius_m=50001", ["radius_m"]),
                ("lat=0&lng=0&limit=0", ["limit"]),
                ("lat=0&lng=0&limit=101", ["limit"]),
                ("lat=NaN&lng=inf", ["lat", "lng"]),
                ("lat=0&lng=0&min_rating=6", ["min_rating"]),
                ("lat=0&lng=0&reviewed_only=maybe", ["reviewed_only"]),
            ]
            for (query, fields) in cases {
                let response = try await client.execute(uri: "/v1/places/nearby?\(query)", method: .get)
                #expect(response.status == .badRequest, "\(query)")
                #expect(response.headers[.contentType] == "application/problem+json")
                let body = try json(response)
                #expect(body["code"] as? String == "validation_failed")
                #expect(body["status"] as? Int == 400)
                let errors = try #require(body["errors"] as? [[String: Any]])
                #expect(Set(errors.compactMap { $0["field"] as? String }) == fields, "\(query)")
            }
        }
    }

    @Test("a tampered cursor, or one from another query, is 400 invalid_cursor", arguments: StoreEngine.available)
    func cursorChecks(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.insert((0..<5).map { PlaceDraft(name: "C\($0)", lat: 1 + Double($0) * 0.001, lng: 1) })
        try await environment.withClient { client in
            let first = try await client.execute(uri: "/v1/places/nearby?lat=1&lng=1&limit=2", method: .get)
            let cursor = try #require(try json(first)["next_cursor"] as? String)
            var tampered = Array(cursor)
            tampered[3] = tampered[3] == "A" ? "B" : "A"
            for uri in [
                "/v1/places/nearby?lat=1&lng=1&limit=2&cursor=\(String(tampered))",
                "/v1/places/nearby?lat=1&lng=1.0001&limit=2&cursor=\(cursor)",
                "/v1/places/nearby?lat=1&lng=1&limit=2&radius_m=999&cursor=\(cursor)",
                "/v1/places/nearby?lat=1&lng=1&limit=2&cursor=garbage",
                "/v1/places/1/reviews?cursor=\(cursor)",
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(try json(response)["code"] as? String == "invalid_cursor", "\(uri)")
            }
            // The same cursor with a different page size is still this list.
            let second = try await client.execute(
                uri: "/v1/places/nearby?lat=1&lng=1&limit=3&cursor=\(cursor)", method: .get)
            #expect(second.status == .ok)
            #expect((try json(second)["items"] as? [Any])?.count == 3)
        }
    }

    @Test(
        "GET /v1/places/{id} answers the place, 404 not_found for unknown or malformed ids",
        arguments: StoreEngine.available)
    func showPlace(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let place = try #require(
            try await environment.insert([
                PlaceDraft(
                    name: "Shake Shack", lat: 40.7415, lng: -73.9882, address: "Madison Square Park", phone: "+1 212",
                    category: "burger", source: "nyc", externalId: "ss-1")
            ]).first)
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/v1/places/\(place.id)", method: .get)
            #expect(response.status == .ok)
            let body = try json(response)
            #expect(body["name"] as? String == "Shake Shack")
            #expect(body["lat"] as? Double == 40.7415 && body["lng"] as? Double == -73.9882)
            #expect(body["address"] as? String == "Madison Square Park")
            #expect(body["external_id"] as? String == "ss-1" && body["source"] as? String == "nyc")
            let created = try #require(body["created_at"] as? String)
            #expect(created.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
            for uri in ["/v1/places/999999", "/v1/places/abc", "/v1/places/-1", "/v1/places/99999999999999999999999"] {
                let missing = try await client.execute(uri: uri, method: .get)
                #expect(missing.status == .notFound, "\(uri)")
                #expect(try json(missing)["code"] as? String == "not_found")
            }
            let reviews = try await client.execute(uri: "/v1/places/\(place.id)/reviews", method: .get)
            #expect(reviews.status == .ok)
            let page = try json(reviews)
            #expect((page["items"] as? [Any])?.isEmpty == true && page["next_cursor"] is NSNull)
            let noPlace = try await client.execute(uri: "/v1/places/424242/reviews", method: .get)
            #expect(noPlace.status == .notFound)
        }
    }
}
