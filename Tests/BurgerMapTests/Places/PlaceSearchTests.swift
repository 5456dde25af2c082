import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Place search")
struct PlaceSearchTests {
    @Test("the fold keeps Hangul syllables and folds width, case, accents and voicing marks")
    func fold() {
        #expect(SearchText.fold("수제버거하우스").unicodeScalars.map(\.value) == "수제버거하우스".unicodeScalars.map(\.value))
        #expect(SearchText.fold("ＣＡＦÉ Ñandú") == "cafe nandu")
        #expect(SearchText.fold("Cafe\u{301}") == "cafe")
        #expect(SearchText.fold("ﾊﾞｰｶﾞｰ") == "ハーカー" && SearchText.fold("パン") == "ハン")
        #expect(SearchText.fold("Straße ΣΟΦΟΣ İstanbul") == "strasse σοφοσ istanbul")
        #expect(!SearchText.hasSearchableCharacter("%_ \"*") && SearchText.hasSearchableCharacter("🍔!"))
    }

    @Test(
        "Korean, Japanese and accented Latin match case-, width- and accent-insensitively",
        arguments: StoreEngine.available)
    func scripts(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert([
            PlaceDraft(name: "수제버거하우스", lat: 37.5, lng: 127.0),
            PlaceDraft(name: "버거킹 강남점", lat: 37.49, lng: 127.02),
            PlaceDraft(name: "バーガー東京", lat: 35.68, lng: 139.7),
            PlaceDraft(name: "ﾊﾞｰｶﾞｰ堂", lat: 35.6, lng: 139.6),
            PlaceDraft(name: "ハーカー", lat: 35.6, lng: 139.6),
            PlaceDraft(name: "Café Mozart", lat: 48.2, lng: 16.37),
            PlaceDraft(name: "CAFE NOIR", lat: 48.85, lng: 2.35),
            PlaceDraft(name: "Pizza Uno", lat: 48.86, lng: 2.34, address: "3 Rue du Café", city: "Paris"),
            PlaceDraft(name: "Grill an der Straße", lat: 52.5, lng: 13.4),
            PlaceDraft(name: "ＢＵＲＧＥＲ ＦＵＬＬ", lat: 1, lng: 1),
        ])
        let id = places.map(\.id)
        try await environment.withClient { client in
            let korean = try await client.searchIDs("버거")
            #expect(korean == [id[1], id[0]])
            #expect(try await client.searchIDs("제버거하") == [id[0]])
            // Voicing marks fold away like accents: "ハーカー" is the exact match of all three.
            #expect(try await client.searchIDs("バーガー") == [id[4], id[2], id[3]])
            #expect(try await client.searchIDs("ﾊﾞｰｶﾞｰ") == [id[4], id[2], id[3]])
            #expect(try await client.searchIDs("ハーカー") == [id[4], id[2], id[3]])
            #expect(try await client.searchIDs("東京") == [id[2]])
            #expect(try await client.searchIDs("cafe") == [id[5], id[6], id[7]])
            #expect(try await client.searchIDs("CAFÉ") == [id[5], id[6], id[7]])
            #expect(try await client.searchIDs("strasse") == [id[8]])
            #expect(try await client.searchIDs("burger full") == [id[9]])
            #expect(try await client.searchIDs("paris") == [id[7]])
        }
    }

    @Test(
        "exact name, then prefix, then substring, then address; by review count or by distance",
        arguments: StoreEngine.available)
    func ranking(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert([
            PlaceDraft(name: "The Burger", lat: 10, lng: 10),  // substring
            PlaceDraft(name: "Burger Joint", lat: 10.2, lng: 10),  // prefix, far
            PlaceDraft(name: "burger", lat: 10.5, lng: 10),  // exact
            PlaceDraft(name: "Pizza", lat: 10, lng: 10, address: "1 Burger Street"),  // address only
            PlaceDraft(name: "Burger Bar", lat: 10.01, lng: 10),  // prefix, near
            PlaceDraft(name: "Salad", lat: 10, lng: 10),
        ])
        let id = places.map(\.id)
        try await environment.setReviewCount(id[4], 3)
        try await environment.withClient { client in
            let plainOrder = try await client.searchIDs("BURGER")
            #expect(plainOrder == [id[2], id[4], id[1], id[0], id[3]])
            #expect(
                try await client.searchIDs("burger", ["lat": "10.25", "lng": "10"]) == [
                    id[2], id[1], id[4], id[0], id[3],
                ])
            #expect(
                try await client.searchIDs("burger", ["lat": "10", "lng": "10", "radius_m": "5000"]) == [
                    id[4], id[0], id[3],
                ])
            let response = try await client.send(.get, searchURI(["q": "burger", "lat": "10", "lng": "10"]))
            let first = try #require((try json(response)["items"] as? [[String: Any]])?.first)
            let metres = try #require((first["distance_m"] as? NSNumber)?.doubleValue)
            #expect(abs(metres - referenceDistance(10, 10, 10.5, 10)) < 0.01)
            let plain = try #require(
                (try json(try await client.send(.get, searchURI(["q": "burger"])))["items"] as? [[String: Any]])?.first)
            #expect(plain["distance_m"] is NSNull && plain["name"] as? String == "burger")
        }
    }

    @Test("pages follow cursors; a tampered or foreign cursor is 400", arguments: StoreEngine.available)
    func cursors(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(
            (0..<25).map { PlaceDraft(name: "Patty \($0)", lat: 1, lng: Double($0) / 100) })
        try await environment.withClient { client in
            let all = try await client.searchAll(["q": "patty", "limit": "4"])
            #expect(all.pages == 7 && all.hits.map(\.id) == places.map(\.id))
            let near = try await client.searchAll(["q": "atty", "limit": "3", "lat": "1", "lng": "0.245"])
            #expect(near.hits.count == 25 && near.hits.first?.id == places[24].id)
            let first = try json(try await client.send(.get, searchURI(["q": "patty", "limit": "2"])))
            let cursor = try #require(first["next_cursor"] as? String)
            var tampered = Array(cursor)
            tampered[2] = tampered[2] == "A" ? "B" : "A"
            for (parameters, label) in [
                (["q": "patty", "limit": "2", "cursor": String(tampered)], "tampered"),
                (["q": "patt", "limit": "2", "cursor": cursor], "another query"),
                (["q": "patty", "limit": "2", "lat": "1", "lng": "1", "cursor": cursor], "another point"),
            ] {
                let response = try await client.send(.get, searchURI(parameters))
                #expect(response.status == .badRequest, "\(label)")
                #expect(try json(response)["code"] as? String == "invalid_cursor", "\(label)")
            }
        }
    }

    @Test("bad queries are 400 naming the field, never a scan of everything", arguments: StoreEngine.available)
    func badInput(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.insert([PlaceDraft(name: "Any Place", lat: 1, lng: 1)])
        let cases: [([String: String], String, String)] = [
            ([:], "q", "required"),
            (["q": ""], "q", "too_short"),
            (["q": "a"], "q", "too_short"),
            (["q": "  a  "], "q", "too_short"),
            (["q": "버"], "q", "too_short"),
            (["q": String(repeating: "a", count: 101)], "q", "too_long"),
            (["q": "%%"], "q", "no_letters"),
            (["q": "\"*"], "q", "no_letters"),
            (["q": "_ \\ %"], "q", "no_letters"),
            (["q": "   "], "q", "too_short"),
            (["q": "ab\u{0}c"], "q", "control_characters"),
            (["q": "ab\tc"], "q", "control_characters"),
            (["q": "place", "limit": "51"], "limit", "out_of_range"),
            (["q": "place", "limit": "0"], "limit", "out_of_range"),
            (["q": "place", "lat": "1"], "lng", "required"),
            (["q": "place", "radius_m": "100"], "radius_m", "needs_point"),
            (["q": "place", "lat": "91", "lng": "0"], "lat", "out_of_range"),
        ]
        try await environment.withClient { client in
            for (parameters, field, code) in cases {
                let response = try await client.send(.get, searchURI(parameters), language: "ko")
                #expect(response.status == .badRequest, "\(parameters)")
                let body = try json(response)
                let errors = try #require(body["errors"] as? [[String: Any]], "\(parameters)")
                #expect(
                    errors.contains { $0["field"] as? String == field && $0["code"] as? String == code },
                    "\(parameters): \(errors)")
            }
            #expect(try await client.searchIDs(String(repeating: "a", count: 100)).isEmpty)
        }
    }

    @Test(
        "a two-character search that finds every scan slot taken is 503 with Retry-After; longer ones go on",
        arguments: StoreEngine.available)
    func scanSlots(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert([
            PlaceDraft(name: "Jazz Burger", lat: 1, lng: 1), PlaceDraft(name: "Pizza Uno", lat: 2, lng: 2),
        ])
        let scans = CoreBudget(cores: 1)
        environment.configuration.searchScans = scans
        try await environment.withClient { client in
            #expect(try await client.searchIDs("zz") == [places[0].id, places[1].id])
            // Another two-character search holds the only slot.
            #expect(scans.borrow())
            let busy = try await client.send(.get, searchURI(["q": "zz"]), language: "ja")
            #expect(busy.status == .serviceUnavailable)
            #expect(busy.headers[.retryAfter] == "1")
            let body = try json(busy)
            #expect(body["code"] as? String == "service_unavailable")
            #expect(body["detail"] as? String == "2文字の検索がほかに実行中です。少し待ってから再試行するか、文字を追加してください。")
            // Three characters or more go through the trigram index without a slot.
            #expect(try await client.searchIDs("jazz") == [places[0].id])
            #expect(try await client.searchIDs("izz") == [places[1].id])
            scans.giveBack()
            // Each search gives its slot back: two in a row both answer.
            #expect(try await client.searchIDs("zz") == [places[0].id, places[1].id])
            #expect(try await client.searchIDs("bu") == [places[0].id])
        }
    }

    @Test("SQL, LIKE and FTS syntax in a query matches itself literally", arguments: StoreEngine.available)
    func literalSyntax(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(
            [
                "50% Off Burgers", "a_b Diner", "Say \"Hi\" Cafe", "Star* Grill", "Back\\Slash", "Near Me", "Aab Cafe",
                "x OR y", "Col:on",
                "'; DROP TABLE places; --",
            ].map { PlaceDraft(name: $0, lat: 1, lng: 1) })
        let id = places.map(\.id)
        try await environment.withClient { client in
            let percent = try await client.searchIDs("0%")
            #expect(percent == [id[0]])
            #expect(try await client.searchIDs("% off") == [id[0]])
            #expect(try await client.searchIDs("a_") == [id[1]])
            #expect(try await client.searchIDs("a_b") == [id[1]])
            #expect(try await client.searchIDs("\"hi\"") == [id[2]])
            #expect(try await client.searchIDs("\"hi") == [id[2]])
            #expect(try await client.searchIDs("r*") == [id[3]])
            #expect(try await client.searchIDs("star*") == [id[3]])
            #expect(try await client.searchIDs("k\\s") == [id[4]])
            #expect(try await client.searchIDs("NEAR") == [id[5]])
            #expect(try await client.searchIDs("NEAR(me)").isEmpty)
            #expect(try await client.searchIDs("x OR y") == [id[7]])
            #expect(try await client.searchIDs("l:o") == [id[8]])
            #expect(try await client.searchIDs("drop table") == [id[9]])
            #expect(try await client.searchIDs("'; DROP") == [id[9]])
            #expect(try await environment.allPlaces().count == places.count)
        }
    }

    @Test("search follows creates, renames, moves, deletes and imports", arguments: StoreEngine.available)
    func keptInStep(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let created = try await client.send(
                .post, "/v1/places",
                json: ["name": "Smash Shack", "lat": 37.5, "lng": 127.0, "address": "1 Élysée Rd"],
                token: alice.token)
            let id = try #require((try json(created)["id"] as? NSNumber)?.int64Value)
            #expect(try await client.searchIDs("smash") == [id])
            #expect(try await client.searchIDs("elysee") == [id])
            // Two code points at the end of a name and of an address line.
            #expect(try await client.searchIDs("ck") == [id])
            #expect(try await client.searchIDs("rd") == [id])
            let patched = try await client.send(
                .patch, "/v1/places/\(id)", json: ["name": "Patty Palace", "address": NSNull()], token: alice.token)
            #expect(patched.status == .ok)
            #expect(try await client.searchIDs("smash").isEmpty)
            #expect(try await client.searchIDs("elysee").isEmpty)
            #expect(try await client.searchIDs("palace") == [id])
            #expect(try await client.searchIDs("ck").isEmpty)
            #expect(try await client.searchIDs("rd").isEmpty)
            #expect(try await client.searchIDs("ce") == [id])
            #expect(try await client.send(.delete, "/v1/places/\(id)", token: alice.token).status == .noContent)
            #expect(try await client.searchIDs("palace").isEmpty)
            #expect(try await client.searchIDs("pa").isEmpty)

            // A first load, then a second import that renames one place and adds another.
            let first = try environment.file(
                "a.csv", "id,name,lat,lng,address\nk1,버거 공방,37.5,127.0,서울 성수동\nk2,Ōsaka Grill,34.7,135.5,\n")
            _ = try await environment.load(first, source: "city")
            let k1 = try await client.searchIDs("공방")
            #expect(k1.count == 1)
            #expect(try await client.searchIDs("성수") == k1)
            #expect(try await client.searchIDs("osaka").count == 1)
            #expect(try await client.searchIDs("수동") == k1)
            #expect(try await client.searchIDs("ll").count == 1)
            let second = try environment.file(
                "b.csv",
                "id,name,lat,lng,address\nk1,수제 버거 공방,37.5,127.0,서울 성수동\nk2,Ōsaka Grill,34.7,135.5,\nk3,Kōbe Beef,34.69,135.19,\n"
            )
            let summary = try await environment.load(second, source: "city")
            #expect(summary.inserted == 1 && summary.updated == 1)
            #expect(try await client.searchIDs("수제 버거") == k1)
            #expect(try await client.searchIDs("kobe").count == 1)
            #expect(try await client.searchIDs("gril").count == 1)
            #expect(try await client.searchIDs("ef").count == 1)
        }
    }
}
