import BurgerMap
import BurgerMapCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `Expect: 100-continue` over a real socket: the body is asked for when the service reads it,
/// and refused at once when the head already decides.
@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    static func head(_ lines: [String], body: Int) -> [UInt8] {
        Array(
            (lines + ["Host: 127.0.0.1", "Content-Length: \(body)", "Connection: close", "", ""])
                .joined(separator: "\r\n").utf8)
    }

    @Test(
        "an upload that expects 100-continue gets it before sending the body, then its 201",
        arguments: StoreEngine.available)
    func continueThenCreated(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withLiveClient { port, client in
            let token = try tokens(try await client.register(email: "e@example.com", nickname: "expecter")).access
            let place = try await client.addPlace("Patty Lab", token: token)
            var form = MultipartBody()
            form.field("rating", "5")
            form.field("text", "Juicy patty, soft bun, crisp fries.")
            form.file("photo", TestImages.jpeg())
            let body = form.closed
            let request = Self.head(
                [
                    "POST /v1/places/\(place)/reviews HTTP/1.1", "Authorization: Bearer \(token)",
                    "Content-Type: \(form.contentType)", "Expect: 100-continue",
                ], body: body.count)
            let (interim, final) = try await RawSocket.onThread {
                let socket = try RawSocket(port: port)
                _ = socket.write(request)
                // Nothing of the body has been sent yet.
                let interim = socket.read(until: "\r\n\r\n")
                _ = socket.write(body)
                return (interim, socket.readToEnd())
            }
            #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n")
            #expect(final.text.hasPrefix("HTTP/1.1 201"), "\(final.text.prefix(300))")
            #expect(final.text.contains("\"rating\":5"))
            #expect(!final.text.contains("100 Continue"))
            #expect(try await environment.reviewRowCounts() == (1, 1))
        }
    }

    @Test(
        "an upload without a token gets its 401 without 100, and the connection closes at once",
        arguments: StoreEngine.available)
    func refusedBeforeBody(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        // A drain of the unsent body would outlast the socket's 20 s read timeout: a closed
        // connection shows the service did not wait for a body the client will never send.
        var limits = ConnectionLimits()
        limits.drainTimeout = .seconds(600)
        try await environment.withLiveClient(limits: limits) { port, _ in
            let answer = try await RawSocket.onThread {
                let socket = try RawSocket(port: port)
                _ = socket.write(
                    Self.head(
                        [
                            "POST /v1/places/1/reviews HTTP/1.1", "Content-Type: multipart/form-data; boundary=x",
                            "Expect: 100-continue",
                        ], body: 2_000_000))
                return socket.readToEnd()
            }
            #expect(answer.text.hasPrefix("HTTP/1.1 401"), "\(answer.text.prefix(300))")
            #expect(!answer.text.contains("100 Continue"))
            #expect(answer.text.lowercased().contains("connection: close"))
            #expect(answer.text.contains("\"code\":\"unauthorized\""))
            #expect(answer.closed)
        }
    }

    @Test(
        "a declared length over every route's limit is 413 and an unknown expectation 417, without 100",
        arguments: StoreEngine.available)
    func refusedByTheHead(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withLiveClient { port, _ in
            let oversize = try await RawSocket.onThread {
                let socket = try RawSocket(port: port)
                _ = socket.write(
                    Self.head(
                        [
                            "POST /v1/places/1/reviews HTTP/1.1", "Expect: 100-Continue", "Accept-Language: ko",
                        ], body: 61 << 20))
                return socket.readToEnd()
            }
            #expect(oversize.text.hasPrefix("HTTP/1.1 413"), "\(oversize.text.prefix(300))")
            #expect(!oversize.text.contains("100 Continue"))
            #expect(oversize.text.contains("\"code\":\"payload_too_large\""))
            #expect(oversize.text.lowercased().contains("content-language: ko"))
            #expect(oversize.closed)

            let unknown = try await RawSocket.onThread {
                let socket = try RawSocket(port: port)
                _ = socket.write(Self.head(["POST /v1/auth/login HTTP/1.1", "Expect: teapot"], body: 0))
                return socket.readToEnd()
            }
            #expect(unknown.text.hasPrefix("HTTP/1.1 417"), "\(unknown.text.prefix(300))")
            #expect(unknown.text.contains("\"code\":\"expectation_failed\""))
            #expect(unknown.text.contains("teapot"))
            #expect(unknown.closed)
        }
    }

    @Test(
        "a request that expects 100 but whose route reads no body gets only its answer",
        arguments: StoreEngine.available
    )
    func noBodyRead(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withLiveClient { port, _ in
            let answer = try await RawSocket.onThread {
                let socket = try RawSocket(port: port)
                _ = socket.write(Self.head(["GET /health HTTP/1.1", "Expect: 100-continue"], body: 0))
                return socket.readToEnd()
            }
            #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text.prefix(300))")
            #expect(!answer.text.contains("100 Continue"))
        }
    }
}
