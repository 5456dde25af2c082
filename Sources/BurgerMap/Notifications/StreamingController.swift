import BurgerMapCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// `GET /v1/streaming` (Server-Sent Events) and `POST /v1/streaming/tickets`.
struct StreamingController {
    let streams: NotificationStreams
    let store: any NotificationStore
    let tokens: AccessTokens
    let authentication: AccessTokenMiddleware
    /// How long a ticket may wait to be used.
    static let ticketLifetime: Int64 = 60_000
    /// The most groups a resuming stream is sent; a client further behind reloads its list.
    static let resumeLimit = 1_000

    /// The routes, mounted at `/v1/streaming`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.group().add(middleware: authentication).get { request, context in
            try await stream(request, context: context)
        }
        routes.signedIn(authentication).post("tickets") { request, context in
            try await ticket(request, context: context)
        }
        return routes
    }

    /// `POST /v1/streaming/tickets`: `200 {"ticket", "expires_at"}`, a one-use ticket for
    /// `GET /v1/streaming?ticket=` (a browser's `EventSource` cannot send a token header). The
    /// stream it opens ends when the access token that asked for it expires.
    func ticket(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let token = request.bearerToken ?? ""
        let endsAt = await tokens.expiry(of: token).map(Timestamp.init(date:)) ?? Timestamp.now()
        let ticket = SymmetricKey(size: .bits256).withUnsafeBytes { Base64URL.encode($0) }
        let expiresAt = Timestamp(milliseconds: Timestamp.now().milliseconds + Self.ticketLifetime)
        try await store.createStreamTicket(
            hash: Array(SHA256.hash(data: Data(ticket.utf8))), user: context.user.id, expiresAt: expiresAt,
            streamEndsAt: endsAt)
        return TicketView(ticket: ticket, expiresAt: expiresAt).response()
    }

    /// `GET /v1/streaming`: the caller's notification groups as they change, `text/event-stream`.
    /// `Last-Event-ID` (or `?last_event_id=`) first sends every group changed since; an id older
    /// than the event log keeps starts with `event: reset`.
    func stream(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, endsAt) = try await caller(request, context: context)
        let lastEventID =
            (request.headers[HTTPField.Name("Last-Event-ID")!]
            ?? request.formQuery["last_event_id"].map(String.init))
            .flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        guard let (id, frames) = streams.open(user: user, endsAt: endsAt) else {
            throw Problem(.serviceUnavailable, .streamsFull, headers: [.retryAfter: "10"])
        }
        // Registered first, read second: a change between the two arrives live and in the
        // backlog, and the frame ids tell the copies apart.
        let backlog: [String]
        var sent = lastEventID ?? 0
        do {
            backlog = try await resume(user: user, after: lastEventID, sent: &sent)
        } catch {
            streams.close(id: id, user: user)
            throw error
        }
        var headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
        ]
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let streams = self.streams
        let resumedThrough = sent
        let body = ResponseBody { writer in
            defer { streams.close(id: id, user: user) }
            var sent = resumedThrough
            try await writer.write(ByteBuffer(string: "retry: 3000\n\n" + backlog.joined()))
            // A server shutting down ends its streams at once, rather than waiting out answers
            // that never end; clients reconnect (to another instance) with their Last-Event-ID.
            try await withGracefulShutdownHandler {
                for await frame in frames {
                    if let frameID = Self.frameID(frame) {
                        guard frameID > sent else { continue }
                        sent = frameID
                    }
                    try await writer.write(ByteBuffer(string: frame))
                }
            } onGracefulShutdown: {
                streams.end(id: id, user: user)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The frames a stream resuming after `id` has missed.
    private func resume(user: Int64, after id: Int64?, sent: inout Int64) async throws -> [String] {
        guard let id else { return [] }
        let first = try await streams.events.store.firstEventID()
        let changed = try await store.changedNotifications(for: user, after: id, limit: Self.resumeLimit + 1)
        if (first > 0 && id < first - 1) || changed.count > Self.resumeLimit {
            return ["event: reset\ndata: {}\n\n"]
        }
        sent = max(sent, changed.last?.changedEventID ?? 0)
        return changed.map(NotificationStreams.frame)
    }

    /// The user a stream is for and when it must end: from `?ticket=` or the access token.
    private func caller(_ request: Request, context: AppRequestContext) async throws -> (Int64, Timestamp) {
        if let ticket = request.formQuery["ticket"].map(String.init) {
            guard ticket.utf8.count <= 128,
                let found = try await store.consumeStreamTicket(
                    hash: Array(SHA256.hash(data: Data(ticket.utf8))), at: .now())
            else { throw Problem(.unauthorized, .streamTicketInvalid) }
            return found
        }
        guard let user = context.identity else {
            throw Problem(.unauthorized, .authenticationRequired, headers: [.wwwAuthenticate: "Bearer"])
        }
        let endsAt = await tokens.expiry(of: request.bearerToken ?? "").map(Timestamp.init(date:)) ?? .now()
        return (user.id, endsAt)
    }

    /// The `id:` of a frame (heartbeats have none).
    static func frameID(_ frame: String) -> Int64? {
        guard frame.hasPrefix("id: "), let end = frame.firstIndex(of: "\n") else { return nil }
        return Int64(frame[frame.index(frame.startIndex, offsetBy: 4)..<end])
    }
}

/// `{"ticket": "…", "expires_at": "…"}`.
struct TicketView: JSONWritable {
    var ticket: String
    var expiresAt: Timestamp

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("ticket")
            writer.value(ticket)
            writer.key("expires_at")
            writer.value(expiresAt)
        }
    }
}
