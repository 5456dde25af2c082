import BurgerMapCore
import Foundation
import Hummingbird
import Prometheus

/// `GET /health`, `GET /metrics` and `GET /openapi.yaml`.
struct ServiceController {
    let health: HealthAnswer
    /// The storage fault this instance met, if it still stands.
    var faults: StorageFaults? = nil
    let metrics: PrometheusCollectorRegistry
    /// The photo store, whose state the healthy answer names.
    var photos: (any PhotoStorage)? = nil
    /// Who besides loopback clients may read `/metrics` (`ServiceConfiguration.metricsClients`).
    var metricsClients: [IPNetwork] = []

    /// The routes this controller serves; `/metrics` only when `servesMetrics`.
    func endpoints(servesMetrics: Bool) -> RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("health", use: health)
        if servesMetrics { routes.get("metrics", use: metricsText) }
        routes.get("openapi.yaml", use: openAPI)
        return routes
    }

    /// `GET /health`: `200 {"status": "ok", "version": …}` while the database answers (PostgreSQL's
    /// outage monitor, or on SQLite a check at most a second old: `HealthAnswer`) and `/v1` is served (so a load balancer
    /// never sends traffic to an instance whose `/health` is 200 while its routes still answer 503
    /// for the second until its next check).
    ///
    /// While a write of this instance failed for a full disk or a read-only file, and a probe
    /// write (at most one a second) still fails, `503 storage_full` or `storage_read_only`: a
    /// local fault, so a load balancer should take this instance out until it clears.
    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard await health.isHealthy() else {
            throw Problem(.serviceUnavailable, .databaseUnavailable, headers: [.retryAfter: "5"])
        }
        if let fault = await faults?.current() { throw fault.problem }
        return jsonResponse(Self.healthyBodies[photos?.state ?? .ok] ?? Self.healthyBody, status: .ok)
    }

    /// The healthy answers by the photo store's state: an object store that does not answer,
    /// or refuses the key, fails every instance alike, so it is told in the body of a `200`
    /// (taking instances out would not help), and uploads and photo reads answer `503`.
    static let healthyBodies: [PhotoStoreState: [UInt8]] = Dictionary(
        uniqueKeysWithValues: [PhotoStoreState.ok, .unreachable, .denied].map { ($0, healthyBody(photoStore: $0)) })

    /// The healthy answer's bytes, encoded once: encoding `Health` with `JSONEncoder` took 6.5% of
    /// a `/health` request's time in a profile.
    static let healthyBody = healthyBody(photoStore: .ok)

    static func healthyBody(photoStore: PhotoStoreState) -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.object { writer in
            writer.key("status")
            writer.value("ok")
            writer.key("version")
            writer.value(BurgerMapVersion.current)
            writer.key("photo_store")
            writer.value(photoStore.rawValue)
        }
        return writer.bytes
    }

    /// `GET /metrics`: every metric in Prometheus text format.
    /// Only clients on this machine (the client as trusted proxies name it, so that a local
    /// reverse proxy does not open it to everyone) and those of `--metrics-client`; in-process
    /// tests have no client address and are let in.
    @Sendable func metricsText(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let client = context.clientAddress, !Self.mayReadMetrics(client, extra: metricsClients) {
            throw Problem(.forbidden, .metricsClientRefused)
        }
        return Self.metricsResponse(metrics)
    }

    static let loopback = [IPNetwork("127.0.0.0/8")!, IPNetwork("::1/128")!]

    /// Whether `client` may read `/metrics` on the API port.
    static func mayReadMetrics(_ client: IPAddress, extra: [IPNetwork]) -> Bool {
        (loopback + extra).contains { $0.contains(client) }
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
