import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapSQLite

/// Login throttling behind a reverse proxy: a stranger's failures block the stranger only.
@Suite("Login throttling per client")
struct LoginThrottleTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    @Test(
        "1,000 failed logins from one client behind the proxy block that client, nobody else",
        arguments: StoreEngine.available)
    func strangerBehindProxy(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        environment.configuration.trustedProxies = TrustedProxies([try #require(IPNetwork("127.0.0.1"))])
        let logs = CapturedLogs()
        try await environment.withLiveClient(logger: logs.logger) { _, client in
            func login(_ email: String, _ password: String, from address: String) async throws -> TestResponse {
                let body = try JSONSerialization.data(withJSONObject: ["email": email, "password": password])
                return try await client.execute(
                    uri: "/v1/auth/login", method: .post,
                    headers: [.contentType: "application/json", Self.forwardedFor: address],
                    body: ByteBuffer(bytes: body))
            }
            let users = (0..<5).map { (email: "user\($0)@example.com", address: "198.51.100.\(10 + $0)") }
            for (index, user) in users.enumerated() {
                _ = try await client.register(email: user.email, nickname: "user\(index)", password: "right password")
            }
            // The attack: every tenth attempt names a real user, the rest random addresses; two
            // seconds apart on the test clock, so the first block (15 minutes) ends mid-attack.
            var random = SeededGenerator(seed: 13)
            var counts: [Int: Int] = [:]
            for attempt in 0..<1000 {
                let email =
                    attempt % 10 == 0
                    ? users[attempt / 10 % users.count].email : "x\(random.next() % 1_000_000)@example.org"
                let response = try await login(email, "wrong password", from: "203.0.113.66")
                counts[Int(response.status.code), default: 0] += 1
                clock.advance(milliseconds: 2000)
            }
            // 20 failures, a 900 s block, 20 more when it ends, then a 1,800 s block.
            #expect(counts == [401: 40, 429: 960])

            for user in users {
                let response = try await login(user.email, "right password", from: user.address)
                #expect(response.status == .ok, "\(user.email)")
            }
            // The attacker, even with a right password and a forged address on the left of the chain.
            for forged in ["203.0.113.66", "198.51.100.10, 203.0.113.66"] {
                let blocked = try await login(users[0].email, "right password", from: forged)
                #expect(blocked.status == .tooManyRequests)
                #expect(try problemCode(blocked) == "rate_limited")
                // Blocked at 976 s for 1,800 s; the clock reads 2,000 s.
                #expect(blocked.headers[.retryAfter] == "776")
            }
        }
        let engaged = logs.text.split(separator: "\n").filter { $0.contains("login limit engaged") }
        #expect(engaged.count == 2)
        #expect(engaged.allSatisfy { $0.hasPrefix("notice") && $0.contains("\"client\": 203.0.113.66") })
        #expect(engaged.first?.contains("\"retry_after\": 900") == true)
        #expect(engaged.last?.contains("\"retry_after\": 1800") == true)
        #expect(engaged.allSatisfy { $0.contains("\"limit\": client") })
        #expect(!logs.text.contains("@example"))
    }

    @Test("failures for one account from one client block that pair; the block doubles each round")
    func accountAndClientPairs() async throws {
        let environment = try TestEnvironment()
        let clock = TestClock(startingAt: Timestamp(milliseconds: 0))
        let throttle = LoginThrottle(
            store: environment.database,
            policy: .init(perAccountClient: 3, perClient: 100, window: .seconds(600), firstBlock: .seconds(60)),
            clock: clock.read)
        for _ in 0..<2 { #expect(try await throttle.recordFailure(email: "a@x.co", client: "A").isEmpty) }
        let first = try await throttle.recordFailure(email: "A@x.co", client: "A")
        #expect(first.map(\.kind) == [.accountClient] && first.first?.retryAfter == 60 && first.first?.round == 1)
        #expect(first.first?.accountHash?.count == 12 && first.first?.accountHash?.contains("@") == false)
        #expect(try await throttle.retryAfter(email: "a@x.co", client: "A") == 60)
        #expect(try await throttle.retryAfter(email: "a@x.co", client: "B") == nil)
        #expect(try await throttle.retryAfter(email: "b@x.co", client: "A") == nil)
        clock.advance(milliseconds: 60_000)
        #expect(try await throttle.retryAfter(email: "a@x.co", client: "A") == nil)
        for _ in 0..<2 { _ = try await throttle.recordFailure(email: "a@x.co", client: "A") }
        #expect(try await throttle.recordFailure(email: "a@x.co", client: "A").first?.retryAfter == 120)
        clock.advance(milliseconds: 120_000)
        try await throttle.recordSuccess(email: "a@x.co", client: "A")
        // A success starts the pair over: the next block is the first again.
        for _ in 0..<2 { _ = try await throttle.recordFailure(email: "a@x.co", client: "A") }
        #expect(try await throttle.recordFailure(email: "a@x.co", client: "A").first?.retryAfter == 60)
    }
}
