import BurgerMap
import BurgerMapCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Clients that no polite HTTP library imitates, against the service on a real socket with its
/// real server (connection limits included).
@Suite("Hostile clients over the wire")
struct HostileClientTests {
    /// Runs `body` with the port of a live server on a fresh database.
    static func withLiveServer(
        _ engine: StoreEngine, _ body: @escaping @Sendable (Int, any TestClientProtocol) async throws -> Void
    ) async throws {
        let environment = try await TestEnvironment(engine)
        let app = Application(
            router: try await environment.makeRouter(), server: .guardedHTTP1(ConnectionLimits()),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(try #require(client.port), client)
        }
    }

    /// Sends the whole request before reading anything, then reads until the server closes.
    static func writeFirst(port: Int, _ request: [UInt8]) async throws -> (text: String, closed: Bool) {
        try await RawSocket.onThread {
            let socket = try RawSocket(port: port)
            _ = socket.write(request)
            return socket.readToEnd()
        }
    }

    static func head(_ lines: [String], body: Int) -> [UInt8] {
        Array((lines + ["Host: 127.0.0.1", "Content-Length: \(body)", "", ""]).joined(separator: "\r\n").utf8)
    }

    @Test(
        "a client that writes its whole body first receives the early 413, then the connection closes",
        arguments: StoreEngine.available)
    func writeFirstClients(engine: StoreEngine) async throws {
        try await Self.withLiveServer(engine) { port, client in
            let token = try tokens(try await client.register(email: "w@example.com", nickname: "writer")).access
            let place = try await client.addPlace("Patty Lab", token: token)
            // A JSON body over its 64 KiB limit.
            let json = Array("{\"email\": \"\(String(repeating: "a", count: 1 << 20))\"}".utf8)
            let jsonAnswer = try await Self.writeFirst(
                port: port,
                Self.head(["POST /v1/auth/login HTTP/1.1", "Content-Type: application/json"], body: json.count) + json)
            // A form that goes over its part count early, with 8 MiB still to come.
            var form = MultipartBody()
            for _ in 0..<20 { form.field("x", "y") }
            form.file("photo", [UInt8](repeating: 7, count: 8 << 20))
            let reviewHead = [
                "POST /v1/places/\(place)/reviews HTTP/1.1", "Authorization: Bearer \(token)",
                "Content-Type: \(form.contentType)",
            ]
            let upload = form.closed
            let formAnswer = try await Self.writeFirst(
                port: port, Self.head(reviewHead, body: upload.count) + upload)
            // A declared length over the 60 MiB limit: answered before a byte of the body is read.
            let huge = [UInt8](repeating: 7, count: 61 << 20)
            let hugeAnswer = try await Self.writeFirst(port: port, Self.head(reviewHead, body: huge.count) + huge)
            for answer in [jsonAnswer, formAnswer, hugeAnswer] {
                #expect(answer.text.hasPrefix("HTTP/1.1 413"), "\(answer.text.prefix(200))")
                #expect(answer.text.lowercased().contains("connection: close"))
                #expect(answer.text.contains("\"code\":\"payload_too_large\""))
                #expect(answer.closed)
            }
        }
    }

    @Test(
        "broken framing is a 400 problem document and a closed connection; an unknown coding is 501",
        arguments: StoreEngine.available)
    func framingErrors(engine: StoreEngine) async throws {
        try await Self.withLiveServer(engine) { port, _ in
            let chunked = ["POST /v1/auth/login HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
            let cases: [(request: String, status: String)] = [
                (
                    (chunked + ["Transfer-Encoding: chunked", "", "ZZ", "{}", "0", "", ""]).joined(separator: "\r\n"),
                    "400"
                ),
                (
                    (chunked + ["Transfer-Encoding: chunked", "", "FFFFFFFFFFFFFFFFFF", "{}", "0", "", ""])
                        .joined(separator: "\r\n"), "400"
                ),
                (
                    (chunked + ["Transfer-Encoding: gzip, chunked", "", "2", "{}", "0", "", ""]).joined(
                        separator: "\r\n"), "501"
                ),
            ]
            for (request, status) in cases {
                let answer = try await RawSocket.onThread {
                    let socket = try RawSocket(port: port)
                    _ = socket.write(Array(request.utf8))
                    return socket.readToEnd()
                }
                #expect(
                    answer.text.hasPrefix("HTTP/1.1 \(status)"), "\(request.prefix(120)) → \(answer.text.prefix(300))")
                #expect(!answer.text.contains("HTTP/1.1 500"))
                #expect(answer.closed)
            }
        }
    }
}
