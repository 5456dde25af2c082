import BurgerMapCore
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Watches one connection on its event loop and closes it when a client holds it without making
/// progress: idle too long, a request head that takes too long, a body that trickles in, or the
/// rest of a body after an early answer. Hummingbird 2.28 offers only a read-idle timeout, which a
/// client defeats by sending one byte now and then, hence this handler.
///
/// It sits after the HTTP decoder (it sees request heads, body parts and ends, and the response
/// parts going out); `ByteCounter`, at the front of the pipeline, tells it when raw bytes arrive
/// and when the service is waiting for them.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase {
        /// No request in progress.
        case idle
        /// Bytes of a request arrived; its head is not complete yet.
        case receivingHead
        /// A head arrived; the answer is not complete yet.
        case inRequest
        /// An early answer went out with `Connection: close`; the body is dropped until it ends.
        case draining(dropped: Int)
    }

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private var phase = Phase.idle
    /// When the current phase's limit runs out, and which limit it is; `nil` while none runs.
    private var deadline: (at: NIODeadline, reason: ConnectionCloseReason)?
    /// The one scheduled check of `deadline`, and when it fires.
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?
    /// Requests whose head arrived and whose answer has not ended (more than one when pipelined).
    private var openRequests = 0
    /// Whether the newest request's body has ended.
    private var requestEnded = true
    private var closeAfterAnswer = false
    /// Whether the newest request asked to close the connection after its answer (Hummingbird
    /// then ends the connection's output once the answer is written).
    private var closeRequested = false
    /// Whether the newest request expects `100 Continue` and has not received it: a client that
    /// gets a final answer instead never sends the body, so there is nothing to drain.
    private var awaitingContinue = false
    /// Time the service spent waiting for bytes during the current body, and the bytes that came.
    private var waited: Duration = .zero
    private var waitingSince: NIODeadline?
    private var bodyBytes = 0
    /// The connection's event loop: its clock is the one timers use (a test's is virtual).
    private var eventLoop: (any EventLoop)?
    /// Where the registry reads whether this connection is idle, and since when.
    private var idleMark: ConnectionRegistry.IdleMark?

    init(limits: ConnectionLimits, registry: ConnectionRegistry) {
        self.limits = limits
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        eventLoop = context.eventLoop
        idleMark = registry.idleMark(context.channel)
        schedule(context, after: limits.idleTimeout, reason: .idle)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        timerAt = nil
    }

    // MARK: Raw traffic, reported by ByteCounter

    /// Raw bytes arrived from the client.
    func bytesArrived(_ count: Int, context: ChannelHandlerContext) {
        if let since = waitingSince {
            waited += .nanoseconds((context.eventLoop.now - since).nanoseconds)
            waitingSince = nil
        }
        bodyBytes += count
        if case .idle = phase, openRequests == 0 {
            phase = .receivingHead
            idleMark?.set(nil)
            schedule(context, after: limits.headerTimeout, reason: .headerTimeout)
        }
    }

    /// The service asked for more bytes (it is not holding the client back).
    func readRequested() {
        if waitingSince == nil, !requestEnded, let eventLoop { waitingSince = eventLoop.now }
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            openRequests += 1
            requestEnded = false
            closeAfterAnswer = false
            closeRequested = head.headerFields[.connection] == "close"
            awaitingContinue = head.headerFields[.expect].map(ExpectContinueHandler.isContinue) ?? false
            waited = .zero
            waitingSince = nil
            bodyBytes = 0
            if case .draining = phase {
                // Whatever follows an early answer is dropped: the connection closes.
                return
            }
            phase = .inRequest
            idleMark?.set(nil)
            schedule(context, after: limits.bodyRateGrace, reason: .bodyTooSlow)
        case .body(let buffer):
            awaitingContinue = false
            if case .draining(let dropped) = phase {
                let total = dropped + buffer.readableBytes
                if total > limits.drainBytes { return close(context, .earlyAnswer) }
                phase = .draining(dropped: total)
                return
            }
        case .end:
            requestEnded = true
            waitingSince = nil
            if case .draining = phase { return close(context, .earlyAnswer) }
            if case .inRequest = phase { cancelTimer() }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // While draining, the service no longer reads (Hummingbird stops asking for bytes once a
        // request with `Connection: close` is answered), so this handler asks for them itself:
        // a client that writes its whole body before reading gets to the end of it and then reads
        // the answer, instead of a reset when the connection closes with its bytes unread.
        if case .draining = phase { context.read() }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .continue:
            awaitingContinue = false
        case .head(var head) where head.status.kind != .informational:
            if !requestEnded || head.headerFields[.connection]?.lowercased() == "close" {
                // An answer before the body was read: tell the client, and close once it is sent.
                closeAfterAnswer = true
                head.headerFields[.connection] = "close"
                return context.write(wrapOutboundOut(.head(head)), promise: promise)
            }
            if closeRequested {
                // Say so in the answer too (RFC 9112 §9.6).
                head.headerFields[.connection] = "close"
                return context.write(wrapOutboundOut(.head(head)), promise: promise)
            }
        case .end:
            openRequests -= 1
            context.write(data, promise: promise)
            answerEnded(context)
            return
        default:
            break
        }
        context.write(data, promise: promise)
    }

    private func answerEnded(_ context: ChannelHandlerContext) {
        guard closeAfterAnswer else {
            if openRequests == 0, requestEnded {
                phase = .idle
                idleMark?.set(context.eventLoop.now)
                schedule(context, after: limits.idleTimeout, reason: .idle)
            }
            return
        }
        context.flush()
        if requestEnded || awaitingContinue {
            // Nothing more to read (or the client, refused before `100 Continue`, will not send
            // it): close once the answer is out.
            return close(context, .earlyAnswer)
        }
        phase = .draining(dropped: 0)
        schedule(context, after: limits.drainTimeout, reason: .earlyAnswer)
        context.read()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A framing error: the request's body can never end, so its answer closes the connection.
        requestEnded = true
        closeAfterAnswer = true
        context.fireErrorCaught(error)
    }

    // MARK: Timers

    // A keep-alive request passes through three limits (head, body, idle). Scheduling and
    // cancelling an event-loop task for each was 2.8% of a `/health` request's CPU (`perf`,
    // docs/performance/http-path.md "The HTTP path against a bare route"), so one check runs per connection: a limit
    // that ends no sooner than the armed check only moves `deadline`, and the check, firing
    // early, re-arms itself for what is left. It is armed at most `checkInterval` ahead, no
    // later than any head timeout that can follow, so a request re-arms nothing.

    /// How far ahead the check is armed at most.
    private var checkInterval: Duration { min(limits.headerTimeout, limits.idleTimeout) }

    private func schedule(_ context: ChannelHandlerContext, after delay: Duration, reason: ConnectionCloseReason) {
        let now = context.eventLoop.now
        let at = now + .nanoseconds(delay.nanoseconds)
        deadline = (at, reason)
        if let timerAt, timerAt <= at { return }
        arm(context, at: min(at, now + .nanoseconds(checkInterval.nanoseconds)))
    }

    private func arm(_ context: ChannelHandlerContext, at: NIODeadline) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timerAt = at
        timer = context.eventLoop.scheduleTask(deadline: at) {
            let (handler, context) = loopBound.value
            handler.checkFired(context)
        }
    }

    private func checkFired(_ context: ChannelHandlerContext) {
        timer = nil
        timerAt = nil
        guard let deadline else { return }
        let now = context.eventLoop.now
        guard deadline.at <= now else {
            return arm(context, at: min(deadline.at, now + .nanoseconds(checkInterval.nanoseconds)))
        }
        self.deadline = nil
        timerFired(context, deadline.reason)
    }

    private func timerFired(_ context: ChannelHandlerContext, _ reason: ConnectionCloseReason) {
        switch (phase, reason) {
        case (.inRequest, .bodyTooSlow):
            guard !requestEnded else { return }
            var waited = self.waited
            if let since = waitingSince { waited += .nanoseconds((context.eventLoop.now - since).nanoseconds) }
            let seconds = Double(waited.nanoseconds) / 1e9
            if waited >= limits.bodyRateGrace, Double(bodyBytes) < Double(limits.minimumBodyRate) * seconds {
                return close(context, .bodyTooSlow)
            }
            // Judged again every second once the grace has passed.
            schedule(context, after: .seconds(1), reason: .bodyTooSlow)
        case (.idle, .idle), (.receivingHead, .headerTimeout), (.draining, .earlyAnswer):
            close(context, reason)
        default:
            break
        }
    }

    /// No limit runs (the armed check, if any, finds nothing to do).
    private func cancelTimer() {
        deadline = nil
    }

    private func close(_ context: ChannelHandlerContext, _ reason: ConnectionCloseReason) {
        deadline = nil
        timer?.cancel()
        timer = nil
        timerAt = nil
        registry.metrics.closed(reason)
        context.close(promise: nil)
    }
}

/// The first handler of a connection: tells its `ConnectionGuard` when raw bytes arrive (a head
/// in progress, body bytes) and when the service asks for more (time the client is to blame for).
final class ByteCounter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    private let guardHandler: ConnectionGuard
    private var guardContext: ChannelHandlerContext?

    init(reportingTo guardHandler: ConnectionGuard) {
        self.guardHandler = guardHandler
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guardContext = try? context.pipeline.syncOperations.context(handler: guardHandler)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guardContext = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let guardContext {
            guardHandler.bytesArrived(unwrapInboundIn(data).readableBytes, context: guardContext)
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guardHandler.readRequested()
        context.read()
    }
}

extension Duration {
    /// The whole duration in nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000
    }
}
