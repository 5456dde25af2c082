import BurgerMapCore
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` (RFC 9110 §10.1.1), which Hummingbird 2.28.1 and NIO leave
/// unanswered: curl sends it for bodies over 1 MB and, hearing nothing, waits a second before
/// sending the body anyway.
///
/// `100 Continue` goes out when the service first asks for the body (`ExpectContinueMiddleware`
/// wraps the body and sends `BodyRequested` down the channel), so a route that answers first — a
/// `401` on an upload without a token — answers without the client ever sending the body, and
/// `ConnectionGuard` closes the connection right after that answer instead of draining a body
/// that will not come. When the head alone decides, the answer is final at once: a declared
/// `Content-Length` over the largest body any route accepts is `413`, any other expectation
/// `417`; neither request reaches the router.
///
/// It sits after `ConnectionGuard` (which sees the same heads, and every answer written here).
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Sent down the channel when the service starts reading a request body.
    struct BodyRequested: Sendable {}

    /// The largest body any route accepts (a review upload's form).
    static let largestBody = UploadLimits().requestBytes

    private enum State {
        /// No expectation pending.
        case none
        /// The request expects `100 Continue` and has not been told yet.
        case awaitingBodyRequest
        /// The request was answered here; its body parts are dropped.
        case refused
    }

    private var state = State.none

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            state = .none
            guard let expectation = head.headerFields[.expect] else { break }
            guard Self.isContinue(expectation) else {
                return refuse(
                    context, head,
                    Problem(
                        .expectationFailed, .expectationUnsupported, ["expectation": String(expectation.prefix(40))]))
            }
            if let length = head.headerFields[.contentLength].flatMap({ Int($0) }), length > Self.largestBody {
                return refuse(context, head, Problem(.payloadTooLarge, .bodyTooLarge))
            }
            state = .awaitingBodyRequest
        case .body:
            if case .refused = state { return }
            // The client sent the body without waiting (curl does after a second): no 100 needed.
            state = .none
        case .end:
            if case .refused = state {
                state = .none
                return
            }
            state = .none
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is BodyRequested else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        if case .awaitingBodyRequest = state {
            state = .none
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        promise?.succeed()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let head) = unwrapOutboundIn(data), head.status.kind != .informational,
            case .awaitingBodyRequest = state
        {
            // A final answer before the body was asked for: the client will not send it.
            state = .none
        }
        context.write(data, promise: promise)
    }

    /// Whether an `Expect` value is `100-continue` (case-insensitive, RFC 9110 §10.1.1).
    static func isContinue(_ value: String) -> Bool {
        value.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue"
    }

    /// Answers the request here with `problem` (`Connection: close`; `ConnectionGuard` closes the
    /// connection once it is out, at once when the client waits for a `100` that never comes).
    private func refuse(_ context: ChannelHandlerContext, _ head: HTTPRequest, _ problem: Problem) {
        state = .refused
        let language = Language.preferred(by: head.headerFields[.acceptLanguage])
        let body = (try? problem.encodedBody(in: language)).map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
        var fields = problem.headers
        fields[.contentType] = "application/problem+json"
        fields[.contentLanguage] = language.rawValue
        fields[.contentLength] = "\(body.readableBytes)"
        fields[.connection] = "close"
        fields[AccessLogMiddleware.requestIDHeader] = String(UInt64.random(in: 1...UInt64.max), radix: 16)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: problem.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// Asks for `100 Continue` when a handler first reads the body of a request that expects it.
struct ExpectContinueMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let expectation = request.headers[.expect], ExpectContinueHandler.isContinue(expectation) else {
            return try await next(request, context)
        }
        var request = request
        request.body = RequestBody(asyncSequence: ContinueOnFirstRead(base: request.body, channel: context.channel))
        return try await next(request, context)
    }
}

/// A request body that tells the channel, before its first read, that the body is wanted.
struct ContinueOnFirstRead: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let channel: any Channel

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let channel: any Channel
        var asked = false

        mutating func next() async throws -> ByteBuffer? {
            if !asked {
                asked = true
                channel.triggerUserOutboundEvent(ExpectContinueHandler.BodyRequested(), promise: nil)
            }
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), channel: channel)
    }
}
