import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The access log: one line per request at its end, with nothing private in it.
@Suite("Access log")
struct AccessLogTests {
    static let requestID = HTTPField.Name("X-Request-Id")!

    /// The access lines of a capture, one per request.
    static func accessLines(_ logs: CapturedLogs) -> [Substring] {
        logs.text.split(separator: "\n").filter { $0.hasPrefix("info request [") }
    }

    @Test(
        "each request ends with one line: method, route pattern, status, duration, bytes, id; no coordinates",
        arguments: StoreEngine.available)
    func fieldsAndRedaction(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.insert([PlaceDraft(name: "Patty Lab", lat: 37.5665, lng: 126.978)])
        let logs = CapturedLogs()
        try await environment.withClient(logger: logs.logger) { client in
            let nearby = try await client.execute(
                uri: "/v1/places/nearby?lat=37.5665&lng=126.978&radius_m=1500&limit=5&cursor=&bbox=1,2,3,4",
                method: .get, headers: [Self.requestID: "trace-42.a_b:c"])
            #expect(nearby.status == .badRequest)  // the empty cursor
            #expect(nearby.headers[Self.requestID] == "trace-42.a_b:c")
            let found = try await client.execute(
                uri: "/v1/places/nearby?lat=37.5665&lng=126.978&radius_m=1500&limit=5", method: .get)
            #expect(found.status == .ok)
            let place = try await client.execute(uri: "/v1/places/1", method: .get)
            let missing = try await client.execute(
                uri: "/no/such/route?token=secret-value", method: .get,
                headers: [Self.requestID: String(repeating: "x", count: 65)])
            #expect(missing.status == .notFound)
            let generated = try #require(missing.headers[Self.requestID])
            #expect(generated.count == 32 && generated.allSatisfy(\.isHexDigit))
            let head = try await client.execute(uri: "/health", method: .head)

            let lines = Self.accessLines(logs)
            #expect(lines.count == 5)
            #expect(lines[0].contains("\"method\": GET") && lines[0].contains("\"route\": /v1/places/nearby"))
            #expect(lines[0].contains("\"status\": 400") && lines[0].contains("\"hb.request.id\": trace-42.a_b:c"))
            #expect(lines[0].contains("\"query\": lat=*&lng=*&radius_m=1500&limit=5&cursor=*&bbox=*"))
            #expect(lines[1].contains("\"status\": 200") && lines[1].contains("\"bytes\": \(found.body.readableBytes)"))
            #expect(lines[2].contains("\"route\": /v1/places/{id}") && lines[2].contains("\"status\": 200"))
            #expect(lines[2].contains("\"bytes\": \(place.body.readableBytes)"))
            #expect(lines[3].contains("\"route\": -") && lines[3].contains("\"status\": 404"))
            #expect(lines[3].contains("\"query\": token=*") && lines[3].contains("\"hb.request.id\": \(generated)"))
            #expect(lines[4].contains("\"method\": HEAD") && lines[4].contains("\"bytes\": 0"))
            #expect(head.status == .ok)
            #expect(lines.allSatisfy { $0.contains("\"duration_ms\": ") && $0.contains("\"client\": ") })
        }
        // Neither the coordinates, nor the raw path, nor the token's value appear anywhere.
        for secret in ["37.5665", "126.978", "secret-value", "/no/such/route", "1,2,3,4"] {
            #expect(!logs.text.contains(secret), "\(secret)")
        }
    }

    @Test("tokens, emails and passwords never reach the log, also on failed logins", arguments: StoreEngine.available)
    func noCredentials(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let logs = CapturedLogs()
        try await environment.withClient(logger: logs.logger) { client in
            let body = try await client.register(
                email: "private.person@example.com", nickname: "quiet", password: "hunter2 hunter2")
            let token = try tokens(body).access
            #expect(try await client.send(.get, "/v1/users/me", token: token).status == .ok)
            #expect(
                try await client.login(email: "private.person@example.com", password: "wrong guess").status
                    == .unauthorized)
            #expect(try await client.send(.get, "/v1/users/me", token: token + "x").status == .unauthorized)
            let lines = Self.accessLines(logs)
            #expect(lines.count == 4)
            #expect(lines[1].contains("\"route\": /v1/users/me") && lines[1].contains("\"status\": 200"))
            #expect(lines[2].contains("\"route\": /v1/auth/login") && lines[2].contains("\"status\": 401"))
            for secret in ["private.person", "example.com", "hunter2", "wrong guess", String(token.prefix(20))] {
                #expect(!logs.text.contains(secret), "\(secret)")
            }
        }
    }

    @Test("streamed bodies are counted once written, a HEAD of one logged; the line is switchable; the id is kept")
    func streamedAndSwitchable() async throws {
        for enabled in [true, false] {
            let logs = CapturedLogs()
            let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
            router.add(middleware: AccessLogMiddleware(enabled: enabled))
            router.add(middleware: ProblemMiddleware())
            router.get("stream/:count") { _, context -> Response in
                let count = try context.parameters.require("count", as: Int.self)
                let chunks = (0..<count).map { ByteBuffer(repeating: 65, count: 1000 + $0) }
                return Response(status: .ok, body: ResponseBody(asyncSequence: chunks.async))
            }
            let app = Application(router: router, logger: logs.logger)
            try await app.test(.router) { client in
                let response = try await client.execute(
                    uri: "/stream/3", method: .get, headers: [Self.requestID: "abc"])
                #expect(response.body.readableBytes == 3003)
                #expect(response.headers[Self.requestID] == "abc")
                // HEAD answers GET's head and drops the stream, which is never written.
                #expect(try await client.execute(uri: "/stream/2", method: .head).status == .ok)
            }
            let lines = Self.accessLines(logs)
            if enabled {
                #expect(lines.count == 2)
                #expect(lines.first?.contains("\"bytes\": 3003") == true)
                #expect(lines.first?.contains("\"route\": /stream/{count}") == true)
                #expect(lines.last?.contains("\"method\": HEAD") == true)
                #expect(lines.last?.contains("\"bytes\": 0") == true)
            } else {
                #expect(lines.isEmpty)
            }
        }
    }

    @Test("behind a trusted proxy the line names the forwarded client", arguments: StoreEngine.available)
    func clientThroughProxy(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.trustedProxies = TrustedProxies([try #require(IPNetwork("127.0.0.0/8"))])
        let logs = CapturedLogs()
        try await environment.withLiveClient(logger: logs.logger) { _, client in
            let response = try await client.execute(
                uri: "/health", method: .get, headers: [HTTPField.Name("X-Forwarded-For")!: "192.0.2.1, 2001:db8::7"])
            #expect(response.status == .ok)
        }
        let lines = Self.accessLines(logs)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("\"client\": 2001:db8::7") == true)
    }

    @Test("request ids: bounded, well-formed ones are adopted; query names are cut and cleaned")
    func rules() {
        #expect(AccessLogMiddleware.isWellFormedRequestID("0f8fad5b-d9cb-469f-a165-70867728950e"))
        for bad in ["", "a b", "a\nb", "é", String(repeating: "a", count: 65), "a\"b"] {
            #expect(!AccessLogMiddleware.isWellFormedRequestID(bad), "\(bad)")
        }
        #expect(Self.redacted("limit=5&email=a%40b&x\"y=1&&sort") == "limit=5&email=*&x?y=*&sort")
        let many = (0..<20).map { "p\($0)=1" }.joined(separator: "&")
        #expect(Self.redacted(many).hasSuffix("&p11=*&…+8"))
        // Appended after what the line holds already.
        var line = Array("x ".utf8)
        AccessLogMiddleware.appendRedacted(query: "sort=new", to: &line)
        #expect(String(decoding: line, as: UTF8.self) == "x sort=new")
        // Made ids: 32 lowercase hex digits, the process's half, then a counter.
        let first = RequestIDs.next()
        let second = RequestIDs.next()
        #expect(first.count == 32 && first.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(first.prefix(16) == second.prefix(16))
        #expect(UInt64(second.suffix(16), radix: 16) == UInt64(first.suffix(16), radix: 16).map { $0 &+ 1 })
        #expect(Self.milliseconds(.microseconds(1234)) == "1.234")
        #expect(Self.milliseconds(.microseconds(5)) == "0.005")
        #expect(Self.milliseconds(.microseconds(120_000_007)) == "120000.007")
        #expect(Self.milliseconds(.microseconds(-3)) == "0.000")
    }

    private static func redacted(_ query: String) -> String {
        var output: [UInt8] = []
        AccessLogMiddleware.appendRedacted(query: query, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private static func milliseconds(_ duration: Duration) -> String {
        var text: [UInt8] = []
        AccessLogMiddleware.appendMilliseconds(duration, to: &text)
        return String(decoding: text, as: UTF8.self)
    }
}
