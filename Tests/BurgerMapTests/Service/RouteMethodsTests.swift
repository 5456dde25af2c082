import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Methods of a route: 405 with Allow, OPTIONS, HEAD")
struct RouteMethodsTests {
    @Test(
        "a known path with a method it does not serve is 405 method_not_allowed listing the route's methods",
        arguments: StoreEngine.available,
        [
            (HTTPRequest.Method.delete, "/v1/places/nearby?lat=1&lng=2", "GET, HEAD, OPTIONS"),
            (.post, "/v1/users/me", "GET, HEAD, PATCH, DELETE, OPTIONS"),
            (.put, "/v1/users/42", "GET, HEAD, OPTIONS"),
            (.get, "/v1/auth/login", "POST, OPTIONS"),
            (.post, "/v1/reviews/7", "GET, HEAD, PATCH, DELETE, OPTIONS"),
            (.patch, "/v1/photos/3.jpg", "GET, HEAD, OPTIONS"),
            (.trace, "/v1/comments/5", "GET, HEAD, PATCH, DELETE, OPTIONS"),
            (HTTPRequest.Method("QUERY")!, "/v1/places", "GET, HEAD, POST, OPTIONS"),
        ])
    func methodNotAllowed(engine: StoreEngine, route: (HTTPRequest.Method, String, String)) async throws {
        let (method, uri, allow) = route
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(uri: uri, method: method)
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == allow)
            #expect(try problemCode(response) == "method_not_allowed")
            #expect(try json(response)["title"] as? String == "Method Not Allowed")
        }
    }

    @Test(
        "405 comes before authentication: a wrong method on a signed-in route is 405 without a token",
        arguments: StoreEngine.available)
    func methodBeforeAuthentication(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/v1/feed", method: .post)
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == "GET, HEAD, OPTIONS")
        }
    }

    @Test("the 405 problem follows Accept-Language", arguments: StoreEngine.available)
    func methodNotAllowedInKorean(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(
                uri: "/v1/feed", method: .delete, headers: [.acceptLanguage: "ko"])
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.contentLanguage] == "ko")
            #expect(try json(response)["title"] as? String == "허용되지 않는 메서드")
        }
    }

    @Test(
        "OPTIONS on a known path is 204 with Allow and no body",
        arguments: StoreEngine.available,
        [
            ("/v1/reviews/7", "GET, HEAD, PATCH, DELETE, OPTIONS"),
            ("/v1/photos/3/thumbnail.jpg", "GET, HEAD, OPTIONS"),
            ("/v1/users/me/avatar", "PUT, OPTIONS"),
            ("/v1/users/9/follow", "PUT, DELETE, OPTIONS"),
        ])
    func options(engine: StoreEngine, route: (String, String)) async throws {
        let (uri, allow) = route
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(uri: uri, method: .options)
            #expect(response.status == .noContent)
            #expect(response.headers[.allow] == allow)
            #expect(response.body.readableBytes == 0)
        }
    }

    @Test(
        "a path that is no route stays 404 not_found whatever the method, OPTIONS included",
        arguments: StoreEngine.available)
    func unknownPath(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            for method in [HTTPRequest.Method.delete, .options, .post] {
                let response = try await client.execute(uri: "/v1/nothing/here", method: method)
                #expect(response.status == .notFound)
                #expect(response.headers[.allow] == nil)
                #expect(try problemCode(response) == "not_found")
            }
        }
    }

    @Test("HEAD answers a GET route's status and headers without the body", arguments: StoreEngine.available)
    func head(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let get = try await client.execute(uri: "/v1/places/nearby?lat=1&lng=2", method: .get)
            let head = try await client.execute(uri: "/v1/places/nearby?lat=1&lng=2", method: .head)
            #expect(head.status == .ok)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(head.headers[.contentLength] == "\(get.body.readableBytes)")
            #expect(head.body.readableBytes == 0)
            let missing = try await client.execute(uri: "/v1/places/999", method: .head)
            #expect(missing.status == .notFound)
            #expect(missing.body.readableBytes == 0)
        }
    }
}
