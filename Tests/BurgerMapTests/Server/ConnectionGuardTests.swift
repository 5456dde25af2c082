import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The connection limits on a real HTTP/1.1 decoding pipeline in an `EmbeddedChannel`, whose
/// event loop runs on virtual time: the test moves the clock, nothing waits.
@Suite("Connection limits")
struct ConnectionGuardTests {
    static let limits: ConnectionLimits = {
        var limits = ConnectionLimits()
        limits.idleTimeout = .seconds(30)
        limits.headerTimeout = .seconds(10)
        limits.minimumBodyRate = 1024
        limits.bodyRateGrace = .seconds(10)
        limits.drainTimeout = .seconds(10)
        limits.drainBytes = 1000
        return limits
    }()

    /// A channel with the server's pipeline: HTTP/1.1 codec, HTTP types, the guard, the byte counter.
    static func channel(
        registry: ConnectionRegistry? = nil, loop: EmbeddedEventLoop = EmbeddedEventLoop()
    ) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        let registry = registry ?? ConnectionRegistry(maximum: 100, metrics: ConnectionMetrics())
        #expect(registry.admit(channel))
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        let guardHandler = ConnectionGuard(limits: limits, registry: registry)
        try pipeline.addHandler(guardHandler)
        try pipeline.addHandler(ByteCounter(reportingTo: guardHandler), position: .first)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static func send(_ channel: EmbeddedChannel, _ text: String) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    static func answer(_ channel: EmbeddedChannel, _ status: HTTPResponse.Status) throws {
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: status)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
    }

    /// The response head the client receives, as text.
    static func sentHead(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    @Test("an idle connection is closed after the idle timeout, not before; a request restarts it")
    func idle() throws {
        let channel = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive)
        try Self.send(channel, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        try Self.answer(channel, .ok)
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test("a head that trickles in is closed after the header timeout, however often bytes arrive")
    func slowHead() throws {
        let channel = try Self.channel()
        try Self.send(channel, "GET /health HTTP/1.1\r\n")
        for _ in 0..<9 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            try Self.send(channel, "X-Slow: 1\r\n")
        }
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1100))
        #expect(!channel.isActive)
    }

    @Test("a body at one byte a second is closed once the grace has passed; a slow but moving one is not")
    func slowBody() throws {
        let trickle = try Self.channel()
        let moving = try Self.channel()
        for channel in [trickle, moving] {
            try Self.send(channel, "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        }
        var closedAfter: Int?
        for second in 1...15 where closedAfter == nil {
            for channel in [trickle, moving] where channel.isActive {
                channel.read()  // the service asks for more bytes
            }
            trickle.embeddedEventLoop.advanceTime(by: .seconds(1))
            moving.embeddedEventLoop.advanceTime(by: .seconds(1))
            if trickle.isActive { try Self.send(trickle, "x") } else { closedAfter = second }
            try Self.send(moving, String(repeating: "y", count: 2048))
        }
        #expect(closedAfter == 10)
        #expect(moving.isActive)
    }

    @Test("time the service keeps the client waiting does not count against the client")
    func backpressureIsNotSlowness() throws {
        let channel = try Self.channel()
        try Self.send(channel, "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        // No read() from the service for a minute: the client cannot send, and is not judged.
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
    }

    @Test("an answer before the body ends says Connection: close, drops the rest, then closes")
    func earlyAnswer() throws {
        let channel = try Self.channel()
        try Self.send(channel, "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789")
        try Self.answer(channel, .contentTooLarge)
        let head = try Self.sentHead(channel)
        #expect(head.hasPrefix("HTTP/1.1 413"))
        #expect(head.lowercased().contains("connection: close"))
        #expect(channel.isActive)
        var parts: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { parts.append(part) }
        try Self.send(channel, String(repeating: "z", count: 89))
        #expect(channel.isActive)
        try Self.send(channel, "z")
        #expect(!channel.isActive)
        // The service saw the head and the first ten bytes; nothing of what was dropped.
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        #expect(parts.count == 2)
    }

    @Test("draining stops at its bounds: time, and bytes")
    func drainBounds() throws {
        let slow = try Self.channel()
        try Self.send(slow, "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nab")
        try Self.answer(slow, .contentTooLarge)
        slow.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(slow.isActive)
        slow.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!slow.isActive)

        let large = try Self.channel()
        try Self.send(large, "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nab")
        try Self.answer(large, .contentTooLarge)
        // The decoder reports the body cut short once the connection closes under it.
        #expect(throws: (any Error).self) { try Self.send(large, String(repeating: "z", count: 1001)) }
        #expect(!large.isActive)
    }

    @Test("a complete request and answer keep the connection open")
    func keepAlive() throws {
        let channel = try Self.channel()
        try Self.send(channel, "POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        try Self.answer(channel, .badRequest)
        #expect(!(try Self.sentHead(channel)).lowercased().contains("connection: close"))
        #expect(channel.isActive)
    }

    @Test("at the cap a new connection replaces the one idle longest; with none idle it is refused")
    func cap() throws {
        let registry = ConnectionRegistry(maximum: 2, metrics: ConnectionMetrics())
        let loop = EmbeddedEventLoop()
        let first = try Self.channel(registry: registry, loop: loop)
        loop.advanceTime(by: .seconds(1))
        let second = try Self.channel(registry: registry, loop: loop)
        loop.advanceTime(by: .seconds(1))
        let third = try Self.channel(registry: registry, loop: loop)
        #expect(!first.isActive)
        #expect(second.isActive && third.isActive)
        // Both busy: a fourth has no place.
        try Self.send(second, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        try Self.send(third, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        #expect(!registry.admit(EmbeddedChannel(loop: loop)))
        #expect(second.isActive && third.isActive)
    }
}
