import BurgerMapCore
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
        // As text once: Hummingbird keeps the id it made as a number, written in hex again each
        // time it is read (the `X-Request-Id` header, every log line of the request).
        if let incoming = request.headers[Self.requestIDHeader], Self.isWellFormedRequestID(incoming) {
            context.logger[metadataKey: "hb.request.id"] = .string(incoming)
        } else {
            context.logger[metadataKey: "hb.request.id"] = .string(context.id)
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
        let status = Int(response.status.code)
        let finalContext = context
        response.whenSent(for: request) { sent in
            log(request, finalContext, status: status, bytes: sent.bytes, start: start, failed: sent.failed)
        }
        return response
    }

    private func log(
        _ request: Request, _ context: Context, status: Int, bytes: Int, start: ContinuousClock.Instant,
        failed: Bool = false
    ) {
        let elapsed = ContinuousClock.now - start
        // Sorted by key, as the line shows them.
        var pairs: [(key: String, value: Logger.Metadata.Value)] = [
            ("bytes", .string(String(bytes))),
            ("client", .string(context.clientText)),
            ("duration_ms", .string(Self.milliseconds(elapsed))),
        ]
        pairs.reserveCapacity(8)
        if failed { pairs.append(("incomplete", "true")) }
        pairs.append(("method", .string(request.method.rawValue)))
        if let query = request.uri.query, !query.isEmpty {
            pairs.append(("query", .string(Self.redacted(query: query))))
        }
        pairs.append(("route", .string(Self.route(context.endpointPath))))
        pairs.append(("status", .string(String(status))))
        if let handler = context.logger.handler as? ServiceLogHandler {
            handler.log(level: .info, "request", sortedPairs: pairs, source: "BurgerMap")
        } else {
            context.logger.info("request", metadata: Logger.Metadata(uniqueKeysWithValues: pairs))
        }
    }

    /// The matched route pattern; `-` when no route matched.
    static func route(_ endpointPath: String?) -> String {
        guard let endpointPath, endpointPath != "NotFound" else { return "-" }
        return endpointPath
    }

    /// `name=value&name=*…`: values only for `loggedQueryValues`, names cut to 32 code points of
    /// `[A-Za-z0-9_.-]` (anything else shown as `?`), at most `maximumLoggedParameters` of them.
    /// Read as UTF-8 bytes: with `Character`s this was 2.7% of a nearby request's CPU (`perf`).
    static func redacted(query: String) -> String {
        var query = query
        return query.withUTF8 { bytes in
            var output: [UInt8] = []
            output.reserveCapacity(min(bytes.count, 512))
            var logged = 0
            var skipped = 0
            for pair in bytes.split(separator: 0x26, omittingEmptySubsequences: true) {
                guard logged < maximumLoggedParameters else {
                    skipped += 1
                    continue
                }
                logged += 1
                if !output.isEmpty { output.append(0x26) }
                let equals = pair.firstIndex(of: 0x3D)
                let name = pair[..<(equals ?? pair.endIndex)]
                appendSanitized(name, to: &output)
                if let equals {
                    output.append(0x3D)
                    if loggedQueryValueBytes.contains(where: { $0.elementsEqual(name) }) {
                        appendSanitized(pair[(equals + 1)...], to: &output)
                    } else {
                        output.append(0x2A)
                    }
                }
            }
            if skipped > 0 { output.append(contentsOf: "&…+\(skipped)".utf8) }
            return String(decoding: output, as: UTF8.self)
        }
    }

    private static let loggedQueryValueBytes: [[UInt8]] = loggedQueryValues.map { Array($0.utf8) }

    /// At most 32 code points of `text`, each outside `[A-Za-z0-9_.,-]` shown as `?`.
    private static func appendSanitized(_ text: Slice<UnsafeBufferPointer<UInt8>>, to output: inout [UInt8]) {
        var points = 0
        for byte in text where byte & 0xC0 != 0x80 {  // the first byte of each code point
            guard points < 32 else { break }
            points += 1
            let allowed =
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F
                || byte == 0x2E || byte == 0x2D || byte == 0x2C
            output.append(allowed ? byte : 0x3F)
        }
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
