import BurgerMapCore
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

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
            context.logger[metadataKey: "hb.request.id"] = .string(RequestIDs.next())
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
        if let handler = context.logger.handler as? ServiceLogHandler {
            handler.log(level: .info, "request", source: "BurgerMap") { line in
                Self.fields(request, context, status: status, bytes: bytes, elapsed: elapsed, failed: failed, to: &line)
            }
        } else {
            var line = MetadataFields()
            Self.fields(request, context, status: status, bytes: bytes, elapsed: elapsed, failed: failed, to: &line)
            context.logger.info("request", metadata: line.metadata)
        }
    }

    /// The line's fields, in key order.
    private static func fields(
        _ request: Request, _ context: Context, status: Int, bytes: Int, elapsed: Duration, failed: Bool,
        to line: inout some LogLineFields
    ) {
        line.add("bytes", number: bytes)
        line.add("client", text: context.clientText)
        line.add("duration_ms") { appendMilliseconds(elapsed, to: &$0) }
        if failed { line.add("incomplete", text: "true") }
        line.add("method", text: request.method.rawValue)
        if let query = request.uri.query, !query.isEmpty {
            line.add("query") { appendRedacted(query: query, to: &$0) }
        }
        line.add("route", text: route(context.endpointPath))
        line.add("status", number: status)
    }

    /// The matched route pattern; `-` when no route matched.
    static func route(_ endpointPath: String?) -> String {
        guard let endpointPath, endpointPath != "NotFound" else { return "-" }
        return endpointPath
    }

    /// Appends `name=value&name=*…`: values only for `loggedQueryValues`, names cut to 32 code points of
    /// `[A-Za-z0-9_.-]` (anything else shown as `?`), at most `maximumLoggedParameters` of them.
    /// Read as UTF-8 bytes: with `Character`s this was 2.7% of a nearby request's CPU (`perf`).
    static func appendRedacted(query: String, to output: inout [UInt8]) {
        var query = query
        query.withUTF8 { bytes in
            let start = output.count
            var logged = 0
            var skipped = 0
            for pair in bytes.split(separator: 0x26, omittingEmptySubsequences: true) {
                guard logged < maximumLoggedParameters else {
                    skipped += 1
                    continue
                }
                logged += 1
                if output.count > start { output.append(0x26) }
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

    /// Appends milliseconds with three decimals (`0.412`), the digits written in place.
    static func appendMilliseconds(_ duration: Duration, to text: inout [UInt8]) {
        let micros = UInt64(max(0, duration.nanoseconds / 1000))
        text.appendDecimal(micros / 1000)
        text.append(UInt8(ascii: "."))
        text.appendDecimal(micros % 1000, minimumWidth: 3)
    }
}

/// The ids of requests that bring none: 32 hex digits, like Hummingbird's own, a random half drawn
/// once per process and a counter. Made here rather than read from Hummingbird's `RequestID`,
/// which writes itself in hex with `String(radix:)`, padding and a join each time it is read: 1 µs
/// of every request (`perf`, 2026-11-28).
enum RequestIDs {
    private static let processHalf = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(UInt64.random(in: .min ... .max))

    /// The next id.
    static func next() -> String {
        var text: [UInt8] = []
        text.reserveCapacity(32)
        text.appendHex(processHalf, digits: 16)
        text.appendHex(counter.wrappingAdd(1, ordering: .relaxed).oldValue, digits: 16)
        return String(decoding: text, as: UTF8.self)
    }
}
