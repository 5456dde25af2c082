import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Bounded work per request")
struct RequestBoundsTests {
    @Test(
        "a form of a thousand tiny parts is refused at the 17th with a small problem document",
        arguments: StoreEngine.available)
    func tooManyParts(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            var form = MultipartBody()
            for _ in 0..<1000 { form.field("x", "y") }
            let response = try await client.upload(.post, "/v1/places/\(place)/reviews", form, token: alice.token)
            #expect(response.status == .contentTooLarge)
            #expect(try problemCode(response) == "payload_too_large")
            #expect(response.body.readableBytes < 4096)
            #expect(try json(response)["detail"] as? String == "The form has more than 16 parts.")
            #expect(try await environment.reviewRowCounts().reviews == 0)
        }
    }

    @Test("a part with too many headers is refused", arguments: StoreEngine.available)
    func tooManyPartHeaders(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            var form = MultipartBody()
            let headers = (0..<20).map { "X-H\($0): v\r\n" }.joined()
            form.raw("--\(form.boundary)\r\nContent-Disposition: form-data; name=\"text\"\r\n\(headers)\r\nhi\r\n")
            let response = try await client.upload(.post, "/v1/places/\(place)/reviews", form, token: alice.token)
            #expect(response.status == .contentTooLarge)
            #expect(try json(response)["detail"] as? String == "A form part has more than 8 headers.")
        }
    }

    @Test("a problem lists the first 20 field errors and counts the rest")
    func fieldErrorsAreBounded() throws {
        let errors = (0..<50).map { FieldError(field: "f\($0)", code: "required", .fieldRequired) }
        let document = try Problem.validation(errors).encodedBody(in: .english)
        let object = try #require(try JSONSerialization.jsonObject(with: document) as? [String: Any])
        let listed = try #require(object["errors"] as? [[String: Any]])
        #expect(listed.map { $0["field"] as? String } == (0..<20).map { "f\($0)" })
        #expect(object["errors_omitted"] as? Int == 30)
        #expect(object["detail"] as? String == "50 fields are invalid.")
    }
}
