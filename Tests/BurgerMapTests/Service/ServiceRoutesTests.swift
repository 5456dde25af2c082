import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Yams

@Suite("Service routes")
struct ServiceRoutesTests {
    @Test("GET /health answers ok while the database answers", arguments: StoreEngine.available)
    func health(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(try json(response)["status"] as? String == "ok")
        }
    }

    @Test("an unknown route is a 404 problem document with a request id", arguments: StoreEngine.available)
    func unknownRoute(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/v1/nothing/here", method: .get)
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == "application/problem+json")
            let body = try json(response)
            #expect(body["code"] as? String == "not_found")
            #expect(body["type"] as? String == "about:blank")
            #expect(body["title"] as? String == "Not Found")
            #expect(response.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
        }
    }

    @Test("GET /metrics counts requests by route and status in Prometheus format", arguments: StoreEngine.available)
    func metrics(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            _ = try await client.execute(uri: "/v1/places/nearby?lat=1&lng=2", method: .get)
            _ = try await client.execute(uri: "/v1/places/nearby?lat=100&lng=2", method: .get)
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            let text = String(buffer: response.body)
            #expect(
                text.contains(
                    #"hb_requests{http_route="/v1/places/nearby",http_request_method="GET",http_response_status_code="200"}"#
                ))
            #expect(text.contains(#"http_response_status_code="400"}"#))
            // The refused request is an error of its route; the answered one is timed (the
            // registry is the process's, so the counts include the other engine's run).
            #expect(
                text.contains(
                    #"hb_request_errors{http_route="/v1/places/nearby",http_request_method="GET",error_type="400"} "#))
            #expect(
                text.contains(
                    #"http_server_request_duration_count{http_route="/v1/places/nearby",http_request_method="GET",http_response_status_code="200"} "#
                ))
            #expect(text.contains("burgermap_db_query_duration"))
        }
    }

    @Test("the OpenAPI document describes exactly the router's routes", arguments: StoreEngine.available)
    func openAPIMatchesRouter(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        // With the LookForRealBurger routes on: the document describes them too.
        environment.configuration.lslp = LSLPSettings(key: "documented")
        let routes = Set(
            try await environment.makeRouter().routes.map { route in
                let path = route.path.description.split(separator: "/").map { part in
                    part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
                }.joined(separator: "/")
                return "\(route.method.rawValue) /\(path)"
            })
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(response.status == .ok)
            let document = try #require(try Yams.load(yaml: String(buffer: response.body)) as? [String: Any])
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let documented = Set(
                paths.flatMap { path, operations in
                    operations.keys.filter { ["get", "put", "post", "patch", "delete", "head"].contains($0) }
                        .map { "\($0.uppercased()) \(path)" }
                })
            #expect(documented == routes)
        }
    }
}
