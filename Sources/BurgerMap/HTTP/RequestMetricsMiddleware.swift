import BurgerMapCore
import Dispatch
import HTTPTypes
import Hummingbird
import Metrics
import Synchronization

/// Counts and times every request under the names and dimensions of Hummingbird's
/// `MetricsMiddleware` (`hb.requests`, `http.server.request.duration`, `hb.request.errors`,
/// `http.server.active_requests`), so `/metrics` reads as it did.
///
/// Written here rather than using Hummingbird's because that one wraps every response body to
/// record after it is written, which takes a buffered answer off Hummingbird's one-write path
/// (`Response.whenSent` says what that cost). Here an answer is recorded by `whenSent`'s rule,
/// the access log's.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    private let handles: MetricHandles

    /// - Parameter factory: where the metrics go (the process's metrics system; tests give a
    ///   registry of their own).
    init(factory: any MetricsFactory = MetricsSystem.factory) {
        handles = MetricHandles(factory: factory)
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = handles.activeRequests(request.method)
        active.increment()
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let endpoint = handles.endpoint(context.endpointPath ?? "NotFound", request.method, status)
            endpoint.requests.increment()
            endpoint.errors?.increment()
            active.decrement()
            throw error
        }
        let endpoint = handles.endpoint(context.endpointPath ?? "Unknown", request.method, response.status)
        response.whenSent(for: request) { _ in
            endpoint.record(since: start)
            active.decrement()
        }
        return response
    }
}

/// The metric objects of each method and of each (route, method, status), made once: the
/// metrics factory's own lookup takes its lock and builds the dimension arrays every time.
/// Bounded as the exported series are: routes are the router's patterns (or `NotFound`), methods
/// the HTTP parser's fixed list (it refuses others), statuses three digits.
private final class MetricHandles: Sendable {
    struct Endpoint: Sendable {
        let requests: Counter
        let duration: Metrics.Timer
        /// Only for the statuses of errors (400 and up): a counter made for every status was
        /// exported at 0 too, so that `/metrics` showed series such as `error_type="200"`.
        let errors: Counter?

        func record(since start: UInt64) {
            requests.increment()
            duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
        }
    }

    struct EndpointKey: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private let factory: any MetricsFactory
    private let methods = Mutex<[HTTPRequest.Method: Meter]>([:])
    private let endpoints = Mutex<[EndpointKey: Endpoint]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func activeRequests(_ method: HTTPRequest.Method) -> Meter {
        methods.withLock { methods in
            if let meter = methods[method] { return meter }
            let meter = Meter(
                label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)],
                factory: factory)
            methods[method] = meter
            return meter
        }
    }

    func endpoint(_ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> Endpoint {
        let key = EndpointKey(route: route, method: method, status: status.code)
        return endpoints.withLock { endpoints in
            if let endpoint = endpoints[key] { return endpoint }
            let dimensions = [
                ("http.route", route), ("http.request.method", method.rawValue),
                ("http.response.status_code", String(status.code)),
            ]
            let endpoint = Endpoint(
                requests: Counter(label: "hb.requests", dimensions: dimensions, factory: factory),
                duration: Metrics.Timer(
                    label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds,
                    factory: factory),
                // `error.type` is the error's class, as OpenTelemetry's HTTP conventions name it:
                // for an HTTP answer, its status code.
                errors: status.code >= 400
                    ? Counter(
                        label: "hb.request.errors",
                        dimensions: [
                            ("http.route", route), ("http.request.method", method.rawValue),
                            ("error.type", String(status.code)),
                        ], factory: factory) : nil)
            endpoints[key] = endpoint
            return endpoint
        }
    }
}
