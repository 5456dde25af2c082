import BurgerMapObjectStorage
import Foundation
import NIOCore
import Testing

/// Retries and failures that a healthy SeaweedFS does not produce: a closed port, 503s, a 4xx and
/// a server that never answers (a scripted loopback stand-in speaking HTTP). Waits are counted
/// through an injected sleep, never slept.
@Suite("ObjectStorage: faults and retries")
struct ObjectStorageFaultTests {
    static let credentials = S3Credentials(accessKeyID: "AK", secretAccessKey: "SK")

    func client(port: Int, retry: S3RetryPolicy, timeout: Duration = .seconds(30)) -> S3Client {
        S3Client(
            configuration: S3Configuration(
                endpoint: URL(string: "http://127.0.0.1:\(port)")!, region: "us-east-1", bucket: "photos",
                addressing: .path, credentials: Self.credentials),
            httpClient: S3TestServer.httpClient, retry: retry, requestTimeout: timeout)
    }

    @Test func closedPortIsUnreachableAfterTheRetries() async throws {
        let sleeps = SleepCounter()
        let s3 = client(port: try await ScriptedHTTPServer.closedPort(), retry: sleeps.policy)
        let error = await #expect(throws: S3Error.self) {
            try await s3.put(
                key: "k", body: ByteBuffer(string: "x"), contentType: "text/plain", cacheControl: "", metadata: [:])
        }
        guard case .unreachable = error else {
            Issue.record("expected .unreachable, got \(String(describing: error))")
            return
        }
        #expect(sleeps.count == 3, "4 attempts, 3 waits")
        // 100 ms doubling, each spread by a factor in [0.5, 1.5).
        for (index, wait) in sleeps.waits.withLock({ $0 }).enumerated() {
            let base = Duration.milliseconds(100) * (1 << index)
            #expect(wait >= base * 0.5 && wait < base * 1.5, "wait \(index + 1): \(wait)")
        }
    }

    @Test func twoServiceUnavailableAnswersThenSuccess() async throws {
        let server = try await ScriptedHTTPServer { $0 < 2 ? 503 : 200 }
        defer { Task { await server.close() } }
        let sleeps = SleepCounter()
        let body = ObjectStorageSeaweedFSTests.photoBytes(2000)
        try await client(port: server.port, retry: sleeps.policy).put(
            key: "a/b.jpg", body: body, contentType: "image/jpeg", cacheControl: "no-cache", metadata: ["w": "1"])
        #expect(server.requestCount == 3)
        #expect(sleeps.count == 2)
        let requests = server.requests.withLock { $0 }
        // Every attempt carries the whole body and a signature of its own.
        #expect(requests.allSatisfy { $0.body == body && $0.head.uri == "/photos/a/b.jpg" })
        #expect(
            requests.allSatisfy { $0.head.headers.first(name: "authorization")?.hasPrefix("AWS4-HMAC-SHA256 ") == true }
        )
        #expect(requests.allSatisfy { $0.head.headers.first(name: "content-md5") != nil })
        #expect(requests[0].head.headers.first(name: "x-amz-meta-w") == "1")
    }

    @Test func serviceUnavailableEveryTimeFailsAfterTheAttempts() async throws {
        let server = try await ScriptedHTTPServer { _ in 503 }
        defer { Task { await server.close() } }
        let sleeps = SleepCounter()
        let error = await #expect(throws: S3Error.self) {
            try await client(port: server.port, retry: sleeps.policy).delete(key: "k")
        }
        guard case .rejected(503, "SlowDown", _) = error else {
            Issue.record("expected .rejected(503, SlowDown), got \(String(describing: error))")
            return
        }
        #expect(server.requestCount == 4)
        #expect(sleeps.count == 3)
    }

    @Test func clientErrorsAreNotRetried() async throws {
        let server = try await ScriptedHTTPServer { _ in 400 }
        defer { Task { await server.close() } }
        let sleeps = SleepCounter()
        let error = await #expect(throws: S3Error.self) {
            try await client(port: server.port, retry: sleeps.policy).put(
                key: "k", body: ByteBuffer(string: "x"), contentType: "text/plain", cacheControl: "", metadata: [:])
        }
        guard case .rejected(400, "Scripted", "scripted 400") = error else {
            Issue.record("expected .rejected(400), got \(String(describing: error))")
            return
        }
        #expect(server.requestCount == 1)
        #expect(sleeps.count == 0)
    }

    @Test func noAnswerTimesOutAsUnreachableAndIsRetried() async throws {
        let server = try await ScriptedHTTPServer { _ in nil }
        defer { Task { await server.close() } }
        let sleeps = SleepCounter()
        var policy = sleeps.policy
        policy.attempts = 2
        let error = await #expect(throws: S3Error.self) {
            _ = try await client(port: server.port, retry: policy, timeout: .milliseconds(300)).head(key: "k")
        }
        guard case .unreachable = error else {
            Issue.record("expected .unreachable, got \(String(describing: error))")
            return
        }
        #expect(server.requestCount == 2)
        #expect(sleeps.count == 1)
    }
}
