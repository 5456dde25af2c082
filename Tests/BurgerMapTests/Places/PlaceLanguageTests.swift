import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Names in the reader's language, opening hours and `open_now`, through the real router on
/// both engines.
@Suite("Place names in the reader's language, opening hours")
struct PlaceLanguageTests {
    /// Thursday 2026-11-26 12:30 in Seoul (03:30 UTC).
    static let thursdayNoonSeoul = Timestamp(milliseconds: 1_764_127_800_000)

    static var burger: [String: Any] {
        [
            "name": "Burger House", "lat": 37.5, "lng": 127.0,
            "names": ["ko": "버거 하우스", "ja": "バーガーハウス", "zh_pinyin": "Hanbao Wu"],
            "opening_hours": "Mo-Fr 11:00-22:00; Sa,Su 12:00-23:00", "timezone": "Asia/Seoul",
        ]
    }

    func items(_ response: TestResponse) throws -> [[String: Any]] {
        try #require(try json(response)["items"] as? [[String: Any]])
    }

    @Test(
        "names: the place's route holds them all; lists show the asked language, say it, and vary by it",
        arguments: StoreEngine.available)
    func namesByLanguage(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let created = try await client.send(.post, "/v1/places", json: Self.burger, token: alice.token)
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let id = try #require((try json(created)["id"] as? NSNumber)?.int64Value)

            let shown = try json(try await client.send(.get, "/v1/places/\(id)"))
            #expect(shown["name"] as? String == "Burger House")
            #expect(
                shown["names"] as? [String: String]
                    == ["ko": "버거 하우스", "ja": "バーガーハウス", "zh_pinyin": "Hanbao Wu"])

            let nearby = "/v1/places/nearby?lat=37.5&lng=127.0"
            let plain = try await client.send(.get, nearby)
            let plainName = try items(plain).first?["name"] as? String
            #expect(plainName == "Burger House")
            let plainNames = try items(plain).first?["names"]
            #expect(plainNames == nil, "lists carry the chosen name only")
            #expect(plain.headers[.contentLanguage] == nil)
            #expect(plain.headers[.vary]?.contains("Accept-Language") == true)

            let korean = try await client.send(.get, nearby + "&lang=ko")
            let koreanName = try items(korean).first?["name"] as? String
            #expect(koreanName == "버거 하우스")
            #expect(korean.headers[.contentLanguage] == "ko")

            let japanese = try await client.send(.get, nearby, language: "ja-JP, ko;q=0.5")
            let japaneseName = try items(japanese).first?["name"] as? String
            #expect(japaneseName == "バーガーハウス")
            // The language served: the Japanese names are stored under `ja`.
            #expect(japanese.headers[.contentLanguage] == "ja")
            let fallback = try await client.send(.get, nearby, language: "fr-CA, ja;q=0.5")
            #expect(try items(fallback).first?["name"] as? String == "バーガーハウス")
            #expect(fallback.headers[.contentLanguage] == "ja", "French asked first, Japanese served")

            let regional = try await client.send(.get, nearby, language: "fr;q=0.9, ko-KR;q=0.8")
            let regionalName = try items(regional).first?["name"] as? String
            #expect(regionalName == "버거 하우스", "fr is missing, ko-KR falls back to ko")

            let override = try await client.send(.get, nearby + "&lang=ja", language: "ko")
            let overrideName = try items(override).first?["name"] as? String
            #expect(overrideName == "バーガーハウス", "?lang= wins")

            let missing = try await client.send(.get, nearby + "&lang=de")
            let missingName = try items(missing).first?["name"] as? String
            #expect(missingName == "Burger House")
            #expect(missing.headers[.contentLanguage] == nil, "no German name was shown")
            // An empty page of places still varies by language.
            let empty = try await client.send(.get, "/v1/places/nearby?lat=-40&lng=-100", language: "ko")
            #expect(try items(empty).isEmpty)
            #expect(empty.headers[.vary]?.contains("Accept-Language") == true)
            #expect(empty.headers[.contentLanguage] == nil)

            // Only a parameter named `lang` counts; its value is percent-decoded; it may come first.
            let other = try await client.send(.get, nearby + "&xlang=ko&flang=ja")
            #expect(try items(other).first?["name"] as? String == "Burger House")
            #expect(other.headers[.contentLanguage] == nil)
            let encoded = try await client.send(.get, nearby + "&lang=j%61")
            #expect(try items(encoded).first?["name"] as? String == "バーガーハウス")
            let first = try await client.send(.get, "/v1/places/nearby?lang=ko&lat=37.5&lng=127.0")
            #expect(try items(first).first?["name"] as? String == "버거 하우스")

            let geo = try await client.send(.get, nearby + "&lang=ko&format=geojson")
            let features = try #require(try json(geo)["features"] as? [[String: Any]])
            #expect((features.first?["properties"] as? [String: Any])?["name"] as? String == "버거 하우스")
        }
    }

    @Test("search finds a place by each of its names", arguments: StoreEngine.available)
    func searchByAnyName(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            _ = try await client.send(.post, "/v1/places", json: Self.burger, token: alice.token)
            _ = try await client.addPlace("Taco Corner", token: alice.token)
            for query in ["Burger House", "버거 하우스", "하우스", "バーガー", "hanbao", "버거"] {
                let escaped = query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
                let found = try items(try await client.send(.get, "/v1/places/search?q=\(escaped)"))
                #expect(found.map { $0["name"] as? String } == ["Burger House"], "\(query)")
            }
        }
    }

    @Test(
        "a PATCH changes the languages it names, null removes one; bad codes and names are 400",
        arguments: StoreEngine.available)
    func editNames(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let id = try #require(
                (try json(try await client.send(.post, "/v1/places", json: Self.burger, token: alice.token))["id"]
                    as? NSNumber)?.int64Value)
            let patched = try await client.send(
                .patch, "/v1/places/\(id)", json: ["names": ["ja": NSNull(), "en": " Burger House Seoul "]],
                token: alice.token)
            #expect(patched.status == .ok, "\(String(buffer: patched.body))")
            #expect(
                try json(patched)["names"] as? [String: String]
                    == ["ko": "버거 하우스", "en": "Burger House Seoul", "zh_pinyin": "Hanbao Wu"])
            let byOldName = try items(
                try await client.send(.get, "/v1/places/search?q=%E3%83%90%E3%83%BC%E3%82%AC%E3%83%BC"))
            #expect(byOldName.isEmpty, "the removed Japanese name no longer finds it")

            let bad = try await client.send(
                .patch, "/v1/places/\(id)", json: ["names": ["k o": "x", "en": String(repeating: "a", count: 301)]],
                token: alice.token)
            #expect(bad.status == .badRequest)
            let fields = (try json(bad)["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
            #expect(fields == ["names.en", "names.k o"])
            let wrongType = try await client.send(
                .post, "/v1/places", json: ["name": "X", "lat": 1, "lng": 1, "names": ["ko", "ja"]], token: alice.token)
            #expect(wrongType.status == .badRequest)
            let zone = try await client.send(
                .post, "/v1/places", json: ["name": "X", "lat": 1, "lng": 1, "timezone": "KST"], token: alice.token)
            let zoneCodes = (try json(zone)["errors"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(zoneCodes == ["unknown_time_zone"])
        }
    }

    @Test(
        "open_now at the service's clock; nearby?open_now=true keeps the open places only",
        arguments: StoreEngine.available)
    func openNow(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.clock = TestClock(startingAt: Self.thursdayNoonSeoul)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let places: [(String, String?, String?)] = [
                ("Weekday Lunch", "Mo-Fr 11:00-14:00", "Asia/Seoul"),
                ("Evenings", "Mo-Su 17:00-23:00", "Asia/Seoul"),
                ("Always", "24/7", "Asia/Seoul"),
                ("Berlin Time", "Mo-Fr 11:00-14:00", "Europe/Berlin"),
                ("Odd Hours", "sunrise-sunset", "Asia/Seoul"),
                ("No Zone", "24/7", nil),
            ]
            for (index, (name, hours, zone)) in places.enumerated() {
                var body: [String: Any] = ["name": name, "lat": 37.5, "lng": 127.0 + Double(index) * 0.001]
                body["opening_hours"] = hours
                body["timezone"] = zone
                let created = try await client.send(.post, "/v1/places", json: body, token: alice.token)
                #expect(created.status == .created, "\(String(buffer: created.body))")
            }
            let all = try items(try await client.send(.get, "/v1/places/nearby?lat=37.5&lng=127.0&radius_m=5000"))
            var openNow: [String: String] = [:]
            for item in all {
                let value = item["open_now"]
                openNow[item["name"] as? String ?? ""] =
                    value is NSNull ? "null" : (value as? Bool).map { $0 ? "open" : "closed" } ?? "missing"
            }
            #expect(
                openNow == [
                    "Weekday Lunch": "open", "Evenings": "closed", "Always": "open", "Berlin Time": "closed",
                    "Odd Hours": "null", "No Zone": "null",
                ], "Berlin Time: 04:30 there")
            #expect(all.first { $0["name"] as? String == "Odd Hours" }?["opening_hours"] as? String == "sunrise-sunset")

            let open = try items(
                try await client.send(.get, "/v1/places/nearby?lat=37.5&lng=127.0&radius_m=5000&open_now=true"))
            #expect(open.compactMap { $0["name"] as? String } == ["Weekday Lunch", "Always"])
        }
        // At 20:00 in Seoul (12:00 in Berlin) the evening place opens and the lunch place closes.
        environment.clock?.advance(milliseconds: 7 * 3_600_000 + 30 * 60_000)
        try await environment.withClient { client in
            let open = try items(
                try await client.send(.get, "/v1/places/nearby?lat=37.5&lng=127.0&radius_m=5000&open_now=true"))
            #expect(open.compactMap { $0["name"] as? String } == ["Evenings", "Always", "Berlin Time"])
        }
    }

    @Test("a place added without a time zone takes --default-timezone", arguments: StoreEngine.available)
    func defaultTimeZone(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.defaultTimeZone = "Asia/Tokyo"
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let created = try json(
                try await client.send(
                    .post, "/v1/places",
                    json: ["name": "Tokyo Burger", "lat": 35.6, "lng": 139.7, "opening_hours": "24/7"],
                    token: alice.token))
            #expect(created["timezone"] as? String == "Asia/Tokyo")
            #expect(created["open_now"] as? Bool == true)
        }
    }
}
