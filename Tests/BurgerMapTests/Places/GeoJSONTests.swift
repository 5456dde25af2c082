import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The place lists as GeoJSON `FeatureCollection`s, on both engines.
@Suite("GeoJSON place lists")
struct GeoJSONTests {
    /// The request's answer as GeoJSON: its features and the whole object.
    static func collection(_ response: TestResponse) throws -> (features: [[String: Any]], body: [String: Any]) {
        #expect(response.headers[.contentType] == "application/geo+json")
        let body = try json(response)
        #expect(body["type"] as? String == "FeatureCollection")
        return (try #require(body["features"] as? [[String: Any]]), body)
    }

    /// Every feature is a Point in [lng, lat] order whose properties are the JSON item.
    static func expectFeatures(_ features: [[String: Any]], equal items: [[String: Any]]) {
        #expect(features.count == items.count)
        for (feature, item) in zip(features, items) {
            #expect(feature["type"] as? String == "Feature")
            #expect((feature["id"] as? NSNumber)?.int64Value == (item["id"] as? NSNumber)?.int64Value)
            let geometry = feature["geometry"] as? [String: Any]
            #expect(geometry?["type"] as? String == "Point")
            let coordinates = (geometry?["coordinates"] as? [NSNumber])?.map(\.doubleValue)
            #expect(coordinates == [(item["lng"] as! NSNumber).doubleValue, (item["lat"] as! NSNumber).doubleValue])
            #expect(NSDictionary(dictionary: feature["properties"] as? [String: Any] ?? [:]).isEqual(to: item))
        }
    }

    @Test("nearby, viewport and search answer GeoJSON by Accept or format=geojson", arguments: StoreEngine.available)
    func routes(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        _ = try await environment.insert([
            PlaceDraft(name: "Smash East", lat: 37.5, lng: 127.001),
            PlaceDraft(name: "Smash West", lat: 37.5, lng: 126.999),
            PlaceDraft(name: "Grill", lat: 37.501, lng: 127.0),
        ])
        try await environment.withClient { client in
            for path in [
                "/v1/places/nearby?lat=37.5&lng=127&radius_m=5000", "/v1/places?bbox=126.9,37.4,127.1,37.6",
                "/v1/places/search?q=smash",
            ] {
                let plain = try await client.send(.get, path)
                #expect(plain.headers[.contentType] == "application/json; charset=utf-8", "\(path)")
                #expect(plain.headers[values: .vary].contains("Accept"), "\(path)")
                let items = try #require(try json(plain)["items"] as? [[String: Any]])
                #expect(!items.isEmpty)
                let accepted = try await client.execute(
                    uri: path, method: .get, headers: [.accept: "application/json;q=0.5, application/geo+json"])
                let (features, body) = try Self.collection(accepted)
                Self.expectFeatures(features, equal: items)
                #expect(body["items"] == nil)
                let asked = try await client.send(.get, path + "&format=geojson")
                Self.expectFeatures(try Self.collection(asked).features, equal: items)
                // JSON ranked above GeoJSON, or asked for by name, stays JSON.
                let json1 = try await client.execute(
                    uri: path, method: .get, headers: [.accept: "application/geo+json;q=0.2, application/json"])
                #expect(json1.headers[.contentType] == "application/json; charset=utf-8")
                let json2 = try await client.execute(
                    uri: path + "&format=json", method: .get, headers: [.accept: "application/geo+json"])
                #expect(json2.headers[.contentType] == "application/json; charset=utf-8")
            }
            // The viewport's `truncated` and the lists' `next_cursor` are foreign members.
            let viewport = try Self.collection(
                try await client.send(.get, "/v1/places?bbox=126.9,37.4,127.1,37.6&limit=2&format=geojson"))
            #expect(viewport.features.count == 2 && viewport.body["truncated"] as? Bool == true)
            let bad = try await client.send(.get, "/v1/places/search?q=smash&format=kml")
            #expect(bad.status == .badRequest)
            let errors = try #require(try json(bad)["errors"] as? [[String: Any]])
            #expect(
                errors.map { $0["field"] as? String } == ["format"] && errors[0]["code"] as? String == "unsupported")
        }
    }

    @Test("GeoJSON pages follow the cursor and the Link header to the same places", arguments: StoreEngine.available)
    func pages(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(
            (0..<5).map { PlaceDraft(name: "Stop \($0)", lat: 37.5 + Double($0) * 0.001, lng: 127.0) })
        try await environment.withClient { client in
            var ids: [Int64] = []
            var path: String? = "/v1/places/nearby?lat=37.5&lng=127&radius_m=5000&limit=2&format=geojson"
            while let next = path {
                let response = try await client.send(.get, next)
                let (features, body) = try Self.collection(response)
                ids += features.map { ($0["id"] as! NSNumber).int64Value }
                let cursor = body["next_cursor"] as? String
                let link = response.headers[HTTPField.Name("Link")!]
                #expect((cursor == nil) == (link == nil))
                path = link.map { String($0.dropFirst().prefix { $0 != ">" }) }
                try #require(ids.count <= 5)
            }
            #expect(ids == places.map(\.id))
        }
    }
}
