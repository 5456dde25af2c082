import BurgerMapCore
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// The service's version: `burgermap --version`, `/health` and the `Server` header.
public enum BurgerMapVersion {
    public static let current = "0.13.0"
    /// The `Server` header: set once per listener, so it costs nothing per request.
    public static let serverName = "BurgerMap/\(current)"
}

/// A `HOST:PORT` on the loopback interface (`127.0.0.0/8`, `::1` or `localhost`), for listeners
/// that must not be reachable from other machines, such as `--metrics-address`.
public struct LoopbackAddress: Sendable, Equatable {
    public var host: String
    public var port: Int

    /// Why a text is not a loopback address.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case malformed
        case notLoopback(String)

        public var description: String {
            switch self {
            case .malformed: "expected HOST:PORT, for example 127.0.0.1:9090 or [::1]:9090"
            case .notLoopback(let host):
                "\(host) is not a loopback address: metrics are served on 127.0.0.1, ::1 or localhost only"
            }
        }
    }

    /// Parses `127.0.0.1:9090`, `[::1]:9090` or `localhost:9090`; any other host is refused.
    public init(parsing text: String) throws(Refusal) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { throw .malformed }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .malformed }
        guard Self.isLoopback(host) else { throw .notLoopback(host) }
        self.host = host
        self.port = port
    }

    /// `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`; checked with `inet_pton`, so
    /// `127.1` or `0x7f.0.0.1` spellings are not taken for what they are not.
    static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
        }
        return false
    }
}

/// The router of the metrics listener: `GET /metrics` (and `HEAD`) and nothing else.
public func buildMetricsRouter() -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: ProblemMiddleware())
    router.get("metrics") { _, _ in ServiceController.metricsResponse(ServiceMetrics.registry) }
    router.answerOtherMethods()
    return router
}

/// Everything `burgermap serve` runs, in one service group: the API listener and, with
/// `metricsAddress`, the metrics listener. SIGINT and SIGTERM shut both down gracefully.
public func buildServiceGroup(_ configuration: ServiceConfiguration, stores: ServiceStores) async throws
    -> ServiceGroup
{
    var logger = Logger(label: "burgermap")
    logger.logLevel = configuration.logLevel
    var services: [any Service] = [try await buildApplication(configuration, stores: stores)]
    if let address = configuration.metricsAddress {
        services.append(
            Application(
                router: buildMetricsRouter(),
                configuration: .init(
                    address: .hostname(address.host, port: address.port), serverName: BurgerMapVersion.serverName),
                logger: logger))
    }
    return ServiceGroup(
        configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
}
