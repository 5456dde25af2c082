import AsyncHTTPClient
import BurgerMapObjectStorage
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

/// The SeaweedFS that scripts/seaweedfs starts and names in `BURGERMAP_TEST_S3_*`.
struct S3TestServer: Sendable {
    let endpoint: URL
    let bucket: String
    let region: String
    let credentials: S3Credentials
    /// A valid key with no right on the bucket.
    let refused: S3Credentials
    let admin: S3Credentials

    /// One HTTP client for every test, made as the service makes it; it lives as long as the
    /// process, as `PushSender.sharedClient` does.
    static let httpClient = HTTPClient(
        eventLoopGroupProvider: .singleton, configuration: S3Client.httpClientConfiguration())

    static func fromEnvironment() throws -> S3TestServer {
        let environment = ProcessInfo.processInfo.environment
        if (environment["BURGERMAP_TEST_S3_ENDPOINT"] ?? "").isEmpty {
            try TestServers.skipUnless(TestServers.objectStoreRuns)
        }
        func value(_ name: String) throws -> String {
            guard let value = environment["BURGERMAP_TEST_S3_\(name)"], !value.isEmpty else {
                throw S3TestSetup.missing("BURGERMAP_TEST_S3_\(name)")
            }
            return value
        }
        guard let endpoint = URL(string: try value("ENDPOINT")) else {
            throw S3TestSetup.missing("BURGERMAP_TEST_S3_ENDPOINT")
        }
        return S3TestServer(
            endpoint: endpoint, bucket: try value("BUCKET"), region: try value("REGION"),
            credentials: S3Credentials(accessKeyID: try value("ACCESS_KEY"), secretAccessKey: try value("SECRET_KEY")),
            refused: S3Credentials(
                accessKeyID: try value("REFUSED_ACCESS_KEY"), secretAccessKey: try value("REFUSED_SECRET_KEY")),
            admin: S3Credentials(
                accessKeyID: try value("ADMIN_ACCESS_KEY"), secretAccessKey: try value("ADMIN_SECRET_KEY")))
    }

    func client(
        credentials: S3Credentials? = nil, bucket: String? = nil, retry: S3RetryPolicy = .standard,
        endpoint: URL? = nil, requestTimeout: Duration = .seconds(30)
    ) -> S3Client {
        S3Client(
            configuration: S3Configuration(
                endpoint: endpoint ?? self.endpoint, region: region, bucket: bucket ?? self.bucket, addressing: .path,
                credentials: credentials ?? self.credentials),
            httpClient: Self.httpClient, retry: retry, requestTimeout: requestTimeout)
    }

    /// A key prefix of its own for each test, so that tests run in parallel on one bucket.
    static func prefix(_ test: String) -> String { "test-\(test)-\(UUID().uuidString.lowercased())/" }
}

enum S3TestSetup: Error, CustomStringConvertible {
    case missing(String)

    var description: String {
        switch self {
        case .missing(let name):
            "\(name) is not set, so the object-storage tests have no S3 server: run the tests through scripts/test, "
                + "or as `scripts/seaweedfs swift test` (with scripts/postgres: `scripts/postgres scripts/seaweedfs "
                + "swift test`), which starts a throw-away SeaweedFS"
        }
    }
}

/// Counts the waits a retry policy asks for, without waiting.
final class SleepCounter: Sendable {
    let waits = Mutex<[Duration]>([])
    var policy: S3RetryPolicy {
        S3RetryPolicy(attempts: 4, firstDelay: .milliseconds(100), seed: 7) { [self] delay in
            waits.withLock { $0.append(delay) }
        }
    }
    var count: Int { waits.withLock { $0.count } }
}

/// A loopback HTTP server that answers from a script: the stand-in for faults SeaweedFS cannot
/// be made to produce (a 503, a server that never answers). Records each request.
final class ScriptedHTTPServer: Sendable {
    /// The status for the n-th request (0-based); nil means never answer.
    let answer: @Sendable (Int) -> Int?
    let requests = Mutex<[(head: HTTPRequestHead, body: ByteBuffer)]>([])
    let channel: any Channel

    var port: Int { channel.localAddress!.port! }
    var requestCount: Int { requests.withLock { $0.count } }

    init(answer: @escaping @Sendable (Int) -> Int?) async throws {
        self.answer = answer
        let box = Mutex<ScriptedHTTPServer?>(nil)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                // A connection can come before `bind` returns: a client of another test still
                // retrying a port that was closed (`closedPort()`) and is now this server's.
                // It is no request of this server's test, and is closed.
                guard let server = box.withLock({ $0 }) else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(server: server))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        box.withLock { $0 = self }
    }

    func close() async { try? await channel.close() }

    /// A loopback port with nothing listening: bound, then closed.
    static func closedPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress!.port!
        try await channel.close()
        return port
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: ScriptedHTTPServer
        var head: HTTPRequestHead?
        var body = ByteBuffer()

        init(server: ScriptedHTTPServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body.clear()
            case .body(var part):
                body.writeBuffer(&part)
            case .end:
                let index = server.requests.withLock {
                    $0.append((head!, body))
                    return $0.count - 1
                }
                guard let status = server.answer(index) else { return }
                let text =
                    status == 200
                    ? ""
                    : "<Error><Code>\(status == 503 ? "SlowDown" : "Scripted")</Code><Message>scripted \(status)</Message></Error>"
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: "\(text.utf8.count)")
                headers.add(name: "ETag", value: "\"scripted\"")
                context.write(
                    wrapOutboundOut(
                        .head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers))),
                    promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
