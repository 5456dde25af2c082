import Foundation
import Hummingbird
import Prometheus

/// `GET /health`, `GET /metrics` and `GET /openapi.yaml`.
struct ServiceController {
    let health: any StoreHealth
    let metrics: PrometheusCollectorRegistry

    /// The routes this controller serves; `/metrics` only when `servesMetrics`.
    func endpoints(servesMetrics: Bool) -> RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("health", use: health)
        if servesMetrics { routes.get("metrics", use: metricsText) }
        routes.get("openapi.yaml", use: openAPI)
        return routes
    }

    struct Health: ResponseEncodable {
        var status: String
        var version = BurgerMapVersion.current
    }

    /// `GET /health`: `200 {"status": "ok", "version": …}` while the database answers and the
    /// outage monitor serves `/v1` (so a load balancer never sends traffic to an instance whose
    /// `/health` is 200 while its routes still answer 503 for the second until its next check).
    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Health {
        guard health.isAvailable, await health.isReachable() else {
            throw Problem(.serviceUnavailable, .databaseUnavailable, headers: [.retryAfter: "5"])
        }
        return Health(status: "ok")
    }

    /// `GET /metrics`: every metric in Prometheus text format.
    @Sendable func metricsText(_ request: Request, context: AppRequestContext) async throws -> Response {
        Self.metricsResponse(metrics)
    }

    /// The Prometheus text of `metrics`.
    static func metricsResponse(_ metrics: PrometheusCollectorRegistry) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
    }

    /// The OpenAPI document shipped with the library.
    static let openAPIDocument: ByteBuffer = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let data = try? Data(contentsOf: url)
        else { return ByteBuffer(string: "") }
        return ByteBuffer(bytes: data)
    }()

    /// `GET /openapi.yaml`: the OpenAPI 3.1 document of this API.
    @Sendable func openAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: Self.openAPIDocument))
    }
}
