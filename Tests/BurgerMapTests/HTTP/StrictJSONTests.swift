import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap

/// Bodies as strict JSON: what Foundation's decoder lets through is refused before it reads them.
@Suite("Strict JSON bodies")
struct StrictJSONTests {
    /// Each document with Python's `json` module's verdict (`json.loads` with an
    /// `object_pairs_hook` that refuses a key given twice), and where the service's differs on
    /// purpose: control characters written as escapes (Python takes them; the service refuses them
    /// but line breaks and tabs), and a lone surrogate (Python takes it; no Swift string holds one).
    static let documents: [(String, StrictJSON.Finding?)] = [
        (#"{"a":1}"#, nil), (#"{"a":1,}"#, .syntax), ("[1,2,]", .syntax),
        (#"{"a":1,"a":2}"#, .duplicateKey("a")), (#"{"a":{"b":1,"b":2}}"#, .duplicateKey("a.b")),
        (#"{"a":"line\nbreak\ttab"}"#, nil), ("01", .syntax), ("-0.5e+3", nil), ("1.", .syntax), (".5", .syntax),
        (#"{"a":tru}"#, .syntax), (#""\ud83c\udf54""#, nil), ("[]", nil), ("{}", nil),
        (#" {"x" : [ 1 , {"y":null} ] } "#, nil), (#"{"a":1}x"#, .syntax), (#"{"a" 1}"#, .syntax),
        ("\"tab\there\"", .syntax), (#"{"k":"é"}"#, nil), ("[1,,2]", .syntax), ("{,}", .syntax),
        (#"{"a":[1,2],"b":{"a":1}}"#, nil),
        // The service's own refusals.
        (#"{"a":"x\u0000y"}"#, .controlCharacters(fields: ["a"])),
        (#"{"a":"\u001f"}"#, .controlCharacters(fields: ["a"])),
        (#"{"a":"\u007f"}"#, .controlCharacters(fields: ["a"])),
        (#"{"a":"\u0085"}"#, .controlCharacters(fields: ["a"])),
        (#"{"a":[1,{"b":"\u0000"}]}"#, .controlCharacters(fields: ["a.1.b"])), (#""\ud83c""#, .syntax),
        (#"{"a":"\u0000","b":["ok","\u0001"],"a2":"\u0002\u0003"}"#, .controlCharacters(fields: ["a", "b.1", "a2"])),
        // Keys are names: an unknown key with a control character is ignored as any unknown key.
        (#"{"\u0010x":"plain","a":"ok"}"#, nil),
        (String(repeating: "[", count: 200) + String(repeating: "]", count: 200), .syntax),
    ]

    @Test("trailing commas, keys given twice and escaped control characters are found; the rest is JSON")
    func verdicts() {
        for (document, expected) in Self.documents {
            #expect(StrictJSON.check(Array(document.utf8)) == expected, "\(document)")
        }
    }

    @Test(
        "a NUL, a trailing comma or a key given twice never reaches an account or a comparison",
        arguments: StoreEngine.available)
    func overHTTP(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            _ = try await client.register(email: "mallory@example.com", nickname: "mallory")
            func post(_ uri: String, _ body: String) async throws -> TestResponse {
                try await client.execute(
                    uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)
                )
            }
            let cut = try await post(
                "/v1/auth/login", #"{"email": "mallory@example.com\u0000a", "password": "correct horse battery"}"#)
            #expect(cut.status == .badRequest)
            #expect(try problemCode(cut) == "validation_failed")
            let fields = try #require(try json(cut)["errors"] as? [[String: Any]])
            #expect(fields.first?["field"] as? String == "email")
            #expect(fields.first?["code"] as? String == "control_characters")
            let comma = try await post(
                "/v1/auth/login", #"{"email": "mallory@example.com", "password": "correct horse battery",}"#)
            #expect(comma.status == .badRequest)
            #expect(try problemCode(comma) == "invalid_json")
            let twice = try await post(
                "/v1/auth/login",
                #"{"email": "mallory@example.com", "password": "wrong", "password": "correct horse battery"}"#)
            #expect(twice.status == .badRequest)
            #expect(try problemCode(twice) == "invalid_json")
            let good = try await post(
                "/v1/auth/login", #"{"email": "mallory@example.com", "password": "correct horse battery"}"#)
            #expect(good.status == .ok)
            let category = try await client.execute(
                uri: "/v1/places/nearby?lat=1&lng=1&category=burger%00xyz", method: .get)
            #expect(category.status == .badRequest)
            let categoryFields = try #require(try json(category)["errors"] as? [[String: Any]])
            #expect(categoryFields.first?["field"] as? String == "category")
            #expect(categoryFields.first?["code"] as? String == "control_characters")
        }
    }
}
