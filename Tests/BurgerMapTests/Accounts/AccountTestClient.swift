import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Requests a client of the account routes sends, written once for the account tests.
extension TestClientProtocol {
    /// Sends `body` as JSON, with an optional access token and language.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json body: [String: Any]? = nil, token: String? = nil,
        language: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if body != nil { headers[.contentType] = "application/json" }
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let language { headers[.acceptLanguage] = language }
        let bytes = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await execute(
            uri: uri, method: method, headers: headers, body: bytes.map { ByteBuffer(bytes: $0) })
    }

    /// Registers an account and returns the `Tokens` body.
    func register(
        email: String, nickname: String, password: String = "correct horse battery"
    ) async throws -> [String: Any] {
        let response = try await send(
            .post, "/v1/auth/register", json: ["email": email, "password": password, "nickname": nickname])
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try json(response)
    }

    /// Logs in and returns the response.
    func login(email: String, password: String) async throws -> TestResponse {
        try await send(.post, "/v1/auth/login", json: ["email": email, "password": password])
    }
}

/// The access and refresh tokens of a `Tokens` body.
func tokens(_ body: [String: Any]) throws -> (access: String, refresh: String) {
    (try #require(body["access_token"] as? String), try #require(body["refresh_token"] as? String))
}

/// The `code` of a problem response, checking that it is a problem document whose texts have
/// every placeholder filled (a `{max}` left in a message is a call site that forgot an argument).
func problemCode(_ response: TestResponse) throws -> String? {
    #expect(response.headers[.contentType] == "application/problem+json")
    let body = try json(response)
    var texts = [body["detail"] as? String ?? ""]
    texts += (body["errors"] as? [[String: Any]] ?? []).map { $0["message"] as? String ?? "" }
    for text in texts {
        #expect(text.range(of: #"\{[a-z_]+\}"#, options: .regularExpression) == nil, "unfilled: \(text)")
    }
    return body["code"] as? String
}
