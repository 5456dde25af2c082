import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Input rules: numbers, every wrong field, format characters, form headers, avatar limits")
struct InputRulesRoundTwoTests {
    @Test("a number parameter holding anything but a number is 400 naming it", arguments: StoreEngine.available)
    func numbersWithTrailingBytes(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            for (query, field) in [
                ("lat=37.5%00abc&lng=127", "lat"), ("lat=37.5&lng=127%00", "lng"),
                ("lat=37.5&lng=127&radius_m=500%00x", "radius_m"), ("lat=37.5&lng=127&min_rating=4%00", "min_rating"),
                ("lat=0x1p5&lng=127", "lat"), ("lat=inf&lng=127", "lat"), ("lat=%2037.5&lng=127", "lat"),
                ("lat=3e&lng=127", "lat"), ("lat=1.2.3&lng=127", "lat"),
            ] {
                let response = try await client.send(.get, "/v1/places/nearby?\(query)")
                #expect(response.status == .badRequest, "\(query)")
                let errors = try json(response)["errors"] as? [[String: Any]] ?? []
                #expect(errors.map { $0["field"] as? String } == [field], "\(query)")
                #expect(errors.first?["code"] as? String == "not_a_number", "\(query)")
            }
            let box = try await client.send(.get, "/v1/places?bbox=1,2,3%00,4")
            #expect(box.status == .badRequest)
            for query in ["lat=37.5&lng=127", "lat=-37.5e0&lng=+127.&radius_m=1E3", "lat=.5&lng=127"] {
                #expect(try await client.send(.get, "/v1/places/nearby?\(query)").status == .ok, "\(query)")
            }
        }
    }

    @Test("a JSON body with nine wrongly typed fields names all nine", arguments: StoreEngine.available)
    func everyWrongField(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let response = try await client.send(
                .post, "/v1/places",
                json: [
                    "name": 1, "lat": "north", "lng": [1], "address": 2, "phone": true, "category": ["a"],
                    "website": 3.5, "source": ["x": 1], "external_id": 7, "ignored": "x",
                ], token: alice.token)
            #expect(response.status == .badRequest)
            #expect(try problemCode(response) == "validation_failed")
            let errors = try #require(try json(response)["errors"] as? [[String: Any]])
            #expect(
                Set(errors.compactMap { $0["field"] as? String })
                    == ["name", "lat", "lng", "address", "phone", "category", "website", "source", "external_id"])
            #expect(errors.allSatisfy { $0["code"] as? String == "wrong_type" })
            #expect(errors.count == 9)
            // Not an object at all is still invalid JSON.
            let array = try await client.execute(
                uri: "/v1/places", method: .post,
                headers: [.contentType: "application/json", .authorization: "Bearer \(alice.token)"],
                body: ByteBuffer(string: "[1, 2]"))
            #expect(try problemCode(array) == "invalid_json")
        }
    }

    @Test(
        "nicknames and bios refuse invisible format characters, but not an emoji's joiner",
        arguments: StoreEngine.available)
    func formatCharacters(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            for nickname in ["mina\u{202E}nim", "mi\u{200B}na", "\u{2066}mina", "mina\u{200D}x", "a\u{E0041}b"] {
                let response = try await client.send(
                    .post, "/v1/auth/register",
                    json: [
                        "email": "m\(nickname.unicodeScalars.count)@example.com", "password": "password1",
                        "nickname": nickname,
                    ])
                #expect(response.status == .badRequest)
                let errors = try json(response)["errors"] as? [[String: Any]] ?? []
                #expect(
                    errors.map { $0["code"] as? String } == ["format_characters"],
                    "\(nickname.unicodeScalars.map(\.value))")
                #expect(errors.first?["field"] as? String == "nickname")
            }
            let alice = try await client.member("alice")
            let joiner = try await client.send(
                .patch, "/v1/users/me", json: ["nickname": "coder 👩‍💻", "bio": "I ❤️‍🔥 burgers 👨🏽‍🍳"], token: alice.token)
            #expect(joiner.status == .ok)
            #expect(try json(joiner)["nickname"] as? String == "coder 👩‍💻")
            let hidden = try await client.send(
                .patch, "/v1/users/me", json: ["bio": "see \u{202E}gnp.exe"], token: alice.token,
                language: "ko")
            #expect(hidden.status == .badRequest)
            let errors = try json(hidden)["errors"] as? [[String: Any]] ?? []
            #expect(errors.map { $0["field"] as? String } == ["bio"])
            #expect((errors.first?["message"] as? String)?.contains("서식 문자") == true)
        }
    }

    @Test("a form part's header block may take 16 KiB exactly, not a byte more", arguments: StoreEngine.available)
    func partHeaderLimit(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            func form(headerBlock size: Int) -> MultipartBody {
                var form = MultipartBody()
                form.field("rating", "5")
                // The block: CR LF after the delimiter, two header lines, the blank line.
                let disposition = "Content-Disposition: form-data; name=\"text\"\r\n"
                let fixed = 2 + disposition.utf8.count + "X-Pad: \r\n".utf8.count + 2
                form.raw(
                    "--\(form.boundary)\r\n\(disposition)X-Pad: \(String(repeating: "p", count: size - fixed))\r\n\r\n")
                form.raw("Smash burger.\r\n")
                return form
            }
            let exact = try await client.upload(
                .post, "/v1/places/\(place)/reviews", form(headerBlock: 16 * 1024), token: alice.token)
            #expect(exact.status == .created, "\(String(buffer: exact.body))")
            let over = try await client.upload(
                .post, "/v1/places/\(place)/reviews", form(headerBlock: 16 * 1024 + 1), token: alice.token)
            #expect(over.status == .contentTooLarge)
            #expect(try problemCode(over) == "payload_too_large")
            var preamble = MultipartBody()
            preamble.raw(String(repeating: "x", count: 16 * 1024 + 1))
            preamble.field("rating", "5")
            let longPreamble = try await client.upload(
                .post, "/v1/places/\(place)/reviews", preamble, token: alice.token)
            #expect(longPreamble.status == .contentTooLarge)
        }
    }

    @Test("avatar uploads have a write limit of their own", arguments: StoreEngine.available)
    func avatarWriteLimit(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.writeLimits[.avatar] = WriteLimit(count: 2, seconds: 3600)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            for attempt in 1...3 {
                var form = MultipartBody()
                form.file("avatar", TestImages.jpeg())
                let response = try await client.upload(.put, "/v1/users/me/avatar", form, token: alice.token)
                if attempt <= 2 {
                    #expect(response.status == .ok)
                } else {
                    #expect(response.status == .tooManyRequests)
                    #expect(try problemCode(response) == "rate_limited")
                    #expect(response.headers[.retryAfter] != nil)
                }
            }
            #expect(try await environment.photoFiles().stored.count == 2)
        }
    }
}
