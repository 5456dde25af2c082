import HTTPTypes
import Hummingbird
import Logging

/// Gives every request its id and, when enabled (`--access-log on`, the default), writes one
/// `info` line when the request is done: method, route pattern, status, duration, response bytes,
/// client address; the id is in the line's `hb.request.id` like every other line of the request.
///
/// Written at the end rather than the start (Hummingbird's `LogRequestsMiddleware` logs the start
/// with the whole query, which holds users' coordinates): the line names the matched route
/// (`/v1/places/{id}`), never the raw path, and of the query only parameter names, with values
/// kept for a short allow-list of harmless ones. Headers and bodies (tokens, emails, passwords)
/// are never logged.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let enabled: Bool

    static let requestIDHeader = HTTPField.Name("X-Request-Id")!
    /// The longest incoming `X-Request-Id` adopted.
    static let maximumRequestIDLength = 64
    /// Query parameters whose values say nothing about a user (no place, no token, no cursor).
    static let loggedQueryValues: Set<Substring> = [
        "limit", "category", "sort", "radius_m", "reviewed_only", "min_rating",
    ]
    /// Query parameters named in the line; the rest are counted.
    static let maximumLoggedParameters = 12

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let incoming = request.headers[Self.requestIDHeader], Self.isWellFormedRequestID(incoming) {
            context.logger[metadataKey: "hb.request.id"] = .string(incoming)
        }
        guard enabled else { return try await next(request, context) }
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            log(request, context, status: 500, bytes: 0, start: start)
            throw error
        }
        if let length = response.body.contentLength {
            // A body whose length is known goes out as is (Hummingbird's one-write fast path for
            // buffers stays): its bytes are its length (none for `HEAD`, whose head announces them).
            let bytes = request.method == .head ? 0 : length
            log(request, context, status: Int(response.status.code), bytes: bytes, start: start)
            return response
        }
        // A streamed body of unknown length: count what is written, and log once it ends.
        let body = response.body
        let status = Int(response.status.code)
        let finalContext = context
        response.body = ResponseBody { writer in
            let counting = CountingBodyWriter(base: writer)
            let counter = counting.counter
            do {
                try await body.write(counting)
            } catch {
                log(request, finalContext, status: status, bytes: counter.value, start: start, failed: true)
                throw error
            }
            log(request, finalContext, status: status, bytes: counter.value, start: start)
        }
        return response
    }

    private func log(
        _ request: Request, _ context: Context, status: Int, bytes: Int, start: ContinuousClock.Instant,
        failed: Bool = false
    ) {
        let elapsed = ContinuousClock.now - start
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue),
            "route": .string(Self.route(context.endpointPath)),
            "status": .stringConvertible(status),
            "duration_ms": .string(Self.milliseconds(elapsed)),
            "bytes": .stringConvertible(bytes),
            "client": .string(context.clientText),
        ]
        if let query = request.uri.query, !query.isEmpty { metadata["query"] = .string(Self.redacted(query: query)) }
        if failed { metadata["incomplete"] = "true" }
        context.logger.info("request", metadata: metadata)
    }

    /// The matched route pattern; `-` when no route matched.
    static func route(_ endpointPath: String?) -> String {
        guard let endpointPath, endpointPath != "NotFound" else { return "-" }
        return endpointPath
    }

    /// `name=value&name=*…`: values only for `loggedQueryValues`, names cut to 32 characters of
    /// `[A-Za-z0-9_.-]` (anything else shown as `?`), at most `maximumLoggedParameters` of them.
    static func redacted(query: String) -> String {
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true)
        var parts: [String] = []
        for pair in pairs.prefix(maximumLoggedParameters) {
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = halves[0]
            var part = sanitized(name)
            if halves.count == 2 {
                part += "=" + (loggedQueryValues.contains(name) ? sanitized(halves[1]) : "*")
            }
            parts.append(part)
        }
        if pairs.count > maximumLoggedParameters { parts.append("…+\(pairs.count - maximumLoggedParameters)") }
        return parts.joined(separator: "&")
    }

    private static func sanitized(_ text: Substring) -> String {
        String(
            text.prefix(32).map { character -> Character in
                character.isASCII && (character.isLetter || character.isNumber || "_.-,".contains(character))
                    ? character : "?"
            })
    }

    /// Whether an incoming request id can be adopted: 1 to 64 characters of `[A-Za-z0-9._:-]`,
    /// so it cannot break a log line or carry anything else.
    static func isWellFormedRequestID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maximumRequestIDLength else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2E
                || byte == 0x5F || byte == 0x3A || byte == 0x2D
        }
    }

    /// Milliseconds with three decimals (`0.412`).
    static func milliseconds(_ duration: Duration) -> String {
        let micros = duration.nanoseconds / 1000
        let fraction = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Passes a response body through and counts its bytes (for the access log).
struct CountingBodyWriter: ResponseBodyWriter {
    final class Counter: @unchecked Sendable {
        var value = 0
    }

    var base: any ResponseBodyWriter
    let counter = Counter()

    mutating func write(_ buffer: ByteBuffer) async throws {
        counter.value += buffer.readableBytes
        try await base.write(buffer)
    }

    mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for buffer in buffers { counter.value += buffer.readableBytes }
        try await base.write(contentsOf: buffers)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
