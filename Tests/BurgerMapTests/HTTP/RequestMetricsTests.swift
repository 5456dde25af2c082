import Hummingbird
import HummingbirdTesting
import Prometheus
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Request metrics")
struct RequestMetricsTests {
    @Test("each answer is counted and timed once: buffered, streamed once written, a HEAD of a stream, an error")
    func countedOnce() async throws {
        // A registry of the test's own: the process's is shared by every test running.
        let registry = PrometheusCollectorRegistry()
        let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestMetricsMiddleware(factory: PrometheusMetricsFactory(registry: registry)))
        router.get("buffered") { _, _ in "ok" }
        router.get("streamed") { _, _ -> Response in
            let chunks = (0..<3).map { ByteBuffer(repeating: 65, count: 1000 + $0) }
            return Response(status: .ok, body: ResponseBody(asyncSequence: chunks.async))
        }
        router.get("refused") { _, _ -> String in throw HTTPError(.badRequest) }
        try await Application(router: router).test(.router) { client in
            #expect(try await client.execute(uri: "/buffered", method: .get).status == .ok)
            let streamed = try await client.execute(uri: "/streamed", method: .get)
            #expect(streamed.body.readableBytes == 3003)
            // HEAD answers GET's head and drops its body, which is then never written.
            let head = try await client.execute(uri: "/streamed", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(try await client.execute(uri: "/refused", method: .get).status == .badRequest)
        }
        let text = registry.emitToString()
        let ok = #"http_request_method="GET",http_response_status_code="200"}"#
        for route in ["/buffered", "/streamed"] {
            #expect(text.contains(#"hb_requests{http_route="\#(route)",\#(ok) 1"#), "\(route)")
            #expect(text.contains(#"http_server_request_duration_count{http_route="\#(route)",\#(ok) 1"#), "\(route)")
        }
        #expect(
            text.contains(
                #"hb_requests{http_route="/refused",http_request_method="GET",http_response_status_code="400"} 1"#))
        #expect(
            text.contains(#"hb_request_errors{http_route="/refused",http_request_method="GET",error_type="400"} 1"#))
        #expect(
            text.contains(
                #"hb_requests{http_route="/streamed",http_request_method="HEAD",http_response_status_code="200"} 1"#))
        // Errors are counted for the statuses of errors only: no series says error_type="200".
        #expect(!text.contains(#"error_type="200""#))
        #expect(!text.contains(#"hb_request_errors{http_route="/buffered""#))
        // None left in flight.
        for method in ["GET", "HEAD"] {
            #expect(text.contains(#"http_server_active_requests{http_request_method="\#(method)"} 0"#), "\(method)")
        }
    }
}
