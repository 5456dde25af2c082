import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Listeners and version")
struct ServiceListenersTests {
    @Test("GET /health names the version", arguments: StoreEngine.available)
    func healthVersion(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let body = try json(try await client.execute(uri: "/health", method: .get))
            #expect(body["status"] as? String == "ok")
            #expect(body["version"] as? String == BurgerMapVersion.current)
            #expect(BurgerMapVersion.current.split(separator: ".").count == 3)
        }
    }

    @Test(
        "with a metrics listener, the API port answers /metrics 404 and the listener serves only /metrics",
        arguments: StoreEngine.available)
    func separateMetrics(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let api = Application(router: try await environment.makeRouter(servesMetrics: false))
        try await api.test(.router) { client in
            _ = try await client.execute(uri: "/health", method: .get)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .notFound)
            #expect(try problemCode(metrics) == "not_found")
        }
        try await Application(router: buildMetricsRouter()).test(.router) { client in
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(String(buffer: metrics.body).contains("# TYPE hb_request"))
            for path in ["/health", "/v1/places/1", "/openapi.yaml"] {
                let other = try await client.execute(uri: path, method: .get)
                #expect(other.status == .notFound, "\(path)")
                #expect(try problemCode(other) == "not_found")
            }
        }
    }

    @Test("--metrics-address takes loopback HOST:PORT only")
    func loopbackAddresses() throws {
        for text in ["127.0.0.1:9090", "127.8.9.10:1", "[::1]:9090", "localhost:65535", "LOCALHOST:80"] {
            let address = try LoopbackAddress(parsing: text)
            #expect(address.port == Int(text.split(separator: ":").last!)!)
        }
        #expect(try LoopbackAddress(parsing: "[::1]:9090").host == "::1")
        for text in ["0.0.0.0:9090", "10.0.0.1:9090", "[::]:9090", "example.com:9090", "128.0.0.1:1", "127.1:9090"] {
            #expect(throws: LoopbackAddress.Refusal.self, "\(text)") { try LoopbackAddress(parsing: text) }
        }
        for text in ["127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", ":9090", "127.0.0.1:http"] {
            #expect(throws: LoopbackAddress.Refusal.malformed, "\(text)") { try LoopbackAddress(parsing: text) }
        }
        let refusal = LoopbackAddress.Refusal.notLoopback("0.0.0.0")
        #expect(refusal.description.contains("not a loopback address"))
    }
}
