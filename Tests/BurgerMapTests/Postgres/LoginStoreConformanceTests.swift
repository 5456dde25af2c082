import Foundation
import Logging
import PostgresNIO
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// The same login checks on every engine: refresh-token rotation, retries and reuse, logouts,
/// concurrent refreshes, and login throttling shared by two instances of the service.
@Suite("Account stores answer alike: logins and throttling")
struct LoginStoreConformanceTests {
    /// A user to log in.
    static func user(_ store: any AccountStore, _ name: String = "ha") async throws -> Int64 {
        try await store.createUser(email: "\(name)@example.com", passwordHash: "-", nickname: name, at: secondsIn(0)).id
    }

    @Test(
        "a token rotates once; a retry within the grace period gets the same successor; reuse revokes the login",
        arguments: StoreEngine.available)
    func rotation(engine: StoreEngine) async throws {
        try await withAccountInstance(engine) { instance in
            let store = instance.accounts
            let ha = try await Self.user(store)
            let grace = Duration.seconds(30)
            func rotate(_ old: UInt8, _ new: UInt8, at seconds: Int64, grace: Duration = grace) async throws
                -> RefreshOutcome
            {
                try await store.rotateRefreshToken(
                    tokenHash(old), to: tokenHash(new), expiresAt: secondsIn(3600), grace: grace, at: secondsIn(seconds)
                )
            }
            try await store.startLogin(
                userID: ha, tokenHash: tokenHash(1), expiresAt: secondsIn(3600), at: secondsIn(0))
            #expect(try await rotate(1, 2, at: 1) == .rotated(userID: ha))
            // The answer was lost: the same token again, with the successor it derives.
            #expect(try await rotate(1, 2, at: 2) == .retried(userID: ha))
            #expect(try await rotate(2, 3, at: 3) == .rotated(userID: ha))
            // Within the grace period still, but its successor is used: a copy is out there.
            #expect(try await rotate(1, 2, at: 4) == .reused)
            #expect(try await rotate(3, 4, at: 5) == .invalid)
            #expect(try await rotate(99, 100, at: 5) == .invalid)

            // Past the grace period a second use is reuse, whatever the successor.
            try await store.startLogin(
                userID: ha, tokenHash: tokenHash(10), expiresAt: secondsIn(3600), at: secondsIn(10))
            #expect(try await rotate(10, 11, at: 11) == .rotated(userID: ha))
            #expect(try await rotate(10, 11, at: 41) == .reused)
            #expect(try await rotate(11, 12, at: 42) == .invalid)

            // An expired token is invalid, and stays unused.
            try await store.startLogin(userID: ha, tokenHash: tokenHash(20), expiresAt: secondsIn(60), at: secondsIn(0))
            #expect(try await rotate(20, 21, at: 60) == .invalid)
            #expect(try await rotate(20, 21, at: 59) == .rotated(userID: ha))
        }
    }

    @Test("logout ends the token's login for its owner only, and again answers yes", arguments: StoreEngine.available)
    func logout(engine: StoreEngine) async throws {
        try await withAccountInstance(engine) { instance in
            let store = instance.accounts
            let ha = try await Self.user(store, "ha")
            let jo = try await Self.user(store, "jo")
            try await store.startLogin(
                userID: ha, tokenHash: tokenHash(1), expiresAt: secondsIn(3600), at: secondsIn(0))
            try await store.startLogin(
                userID: ha, tokenHash: tokenHash(5), expiresAt: secondsIn(3600), at: secondsIn(0))
            #expect(try await !store.endLogin(tokenHash: tokenHash(1), userID: jo, at: secondsIn(1)))
            #expect(try await !store.endLogin(tokenHash: tokenHash(9), userID: ha, at: secondsIn(1)))
            #expect(try await store.endLogin(tokenHash: tokenHash(1), userID: ha, at: secondsIn(2)))
            #expect(try await store.endLogin(tokenHash: tokenHash(1), userID: ha, at: secondsIn(3)))
            let ended = try await store.rotateRefreshToken(
                tokenHash(1), to: tokenHash(2), expiresAt: secondsIn(3600), grace: .seconds(30), at: secondsIn(4))
            #expect(ended == .invalid)
            // The user's other login goes on.
            let other = try await store.rotateRefreshToken(
                tokenHash(5), to: tokenHash(6), expiresAt: secondsIn(3600), grace: .seconds(30), at: secondsIn(4))
            #expect(other == .rotated(userID: ha))
        }
    }

    @Test("eight refreshes with one token at once: exactly one rotates", arguments: StoreEngine.available)
    func concurrentRotation(engine: StoreEngine) async throws {
        try await withAccountInstance(engine) { instance in
            let store = instance.accounts
            let ha = try await Self.user(store)
            // With a grace period the others are retries of it. Without, the first of them is
            // reuse, which revokes the login, and the rest find the token invalid.
            for (first, grace, others) in [
                (UInt8(1), Duration.seconds(30), [(RefreshOutcome.retried(userID: ha), 7)]),
                (UInt8(50), .zero, [(.reused, 1), (.invalid, 6)]),
            ] {
                try await store.startLogin(
                    userID: ha, tokenHash: tokenHash(first), expiresAt: secondsIn(3600), at: secondsIn(0))
                let outcomes = try await withThrowingTaskGroup(of: RefreshOutcome.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            try await store.rotateRefreshToken(
                                tokenHash(first), to: tokenHash(first + 1), expiresAt: secondsIn(3600), grace: grace,
                                at: secondsIn(1))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for (outcome, count) in [(.rotated(userID: ha), 1)] + others {
                    #expect(outcomes.filter { $0 == outcome }.count == count, "\(outcome), grace \(grace)")
                }
            }
        }
    }

    @Test(
        "throttle records: a key starts empty, updates apply in turn, removal and forgetting",
        arguments: StoreEngine.available)
    func throttleRecords(engine: StoreEngine) async throws {
        try await withAccountInstance(engine) { instance in
            let store = instance.throttle
            let start = try await store.updateThrottleKey("client:a", at: secondsIn(0)) { state in
                let before = state
                state = ThrottleKeyState(
                    failures: [secondsIn(0), secondsIn(1)], blockedUntil: secondsIn(60), rounds: 2,
                    lastSeen: secondsIn(1),
                    forgetAt: secondsIn(600))
                return before
            }
            #expect(start == ThrottleKeyState())
            #expect(
                try await store.throttleStates(["client:a", "client:b"])
                    == [
                        "client:a": ThrottleKeyState(
                            failures: [secondsIn(0), secondsIn(1)], blockedUntil: secondsIn(60), rounds: 2,
                            lastSeen: secondsIn(1), forgetAt: secondsIn(600))
                    ])
            // Twenty records with nothing left to say, and one that still counts: each update
            // deletes at most `sweepLimit` of the twenty, never the one.
            for index in 0..<20 {
                _ = try await store.updateThrottleKey("old:\(index)", at: secondsIn(0)) { $0.forgetAt = secondsIn(10) }
            }
            let old = (0..<20).map { "old:\($0)" }
            _ = try await store.updateThrottleKey("client:b", at: secondsIn(100)) { $0.forgetAt = secondsIn(700) }
            #expect(try await store.throttleStates(old).count == 20 - ThrottleKeyState.sweepLimit)
            _ = try await store.updateThrottleKey("client:b", at: secondsIn(101)) { $0.rounds += 1 }
            #expect(try await store.throttleStates(old).isEmpty)
            #expect(try await store.throttleStates(["client:a", "client:b"]).count == 2)
            #expect(try await store.throttleStates(["client:b"])["client:b"]?.rounds == 1)

            try await store.removeThrottleKey("client:a")
            try await store.removeThrottleKey("client:missing")
            #expect(try await store.throttleStates(["client:a", "client:b"]).keys.sorted() == ["client:b"])
        }
    }

    @Test(
        "two instances count one client's failures together: the block engages once, at exactly the limit",
        arguments: StoreEngine.available)
    func throttleAcrossInstances(engine: StoreEngine) async throws {
        try await withTwoAccountInstances(engine) { first, second in
            let clock = TestClock(startingAt: secondsIn(0))
            let policy = LoginThrottle.Policy(perAccountClient: 100, perClient: 10, firstBlock: .seconds(60))
            let throttles = [first, second].map { LoginThrottle(store: $0.throttle, policy: policy, clock: clock.read) }
            /// `count` failures at once from client `client`, alternating between the instances;
            /// answers the blocks they engaged.
            func fail(_ count: Int, client: String) async throws -> [LoginThrottle.Engaged] {
                try await withThrowingTaskGroup(of: [LoginThrottle.Engaged].self) { group in
                    for index in 0..<count {
                        group.addTask {
                            try await throttles[index % 2].recordFailure(email: "u\(index)@example.com", client: client)
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
            }
            #expect(try await fail(9, client: "A").isEmpty)
            for throttle in throttles {
                #expect(try await throttle.retryAfter(email: "x@example.com", client: "A") == nil)
            }
            let engaged = try await throttles[1].recordFailure(email: "last@example.com", client: "A")
            #expect(engaged.map(\.kind) == [.client] && engaged.first?.retryAfter == 60 && engaged.first?.round == 1)
            for throttle in throttles {
                #expect(try await throttle.retryAfter(email: "x@example.com", client: "A") == 60)
            }

            // Twice the limit at once from another client: one block, engaged once.
            let burst = try await fail(20, client: "B")
            #expect(burst.map(\.kind) == [.client] && burst.first?.round == 1)
            clock.advance(milliseconds: 30_000)
            #expect(try await throttles[0].retryAfter(email: "x@example.com", client: "B") == 30)
        }
    }

    @Test("health: a live database answers; a server that is gone answers no within the timeout")
    func health() async throws {
        try await withAccountInstance(.sqlite) { instance in #expect(await instance.health.isReachable()) }
        try await withAccountInstance(.postgres) { instance in #expect(await instance.health.isReachable()) }
        // Nothing listens on port 1: the pool's connection is refused, and the query never runs.
        var url = try testDatabaseURL()
        url.port = 1
        let pool = PostgresPool(
            configuration: .init(
                connection: .init(
                    host: url.host, port: url.port, username: url.username, password: url.password,
                    database: url.database, tls: .disable),
                maximumConnections: 2),
            logger: Logger(label: "burgermap-tests"))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await pool.run() }
            let health = PostgresStoreHealth(
                pool: pool,
                probeConfiguration: .init(
                    host: url.host, port: url.port, username: url.username, password: url.password,
                    database: url.database, tls: .disable),
                logger: Logger(label: "burgermap-tests"), timeout: .milliseconds(500))
            let started = ContinuousClock.now
            #expect(await !health.isReachable())
            #expect(ContinuousClock.now - started < .seconds(5))
            group.cancelAll()
        }
    }
}
