import Foundation
import Logging
import PostgresNIO
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// Both engines side by side on the same places: the same ids, distances to the bit, and pages.
@Suite("Place stores answer alike: side by side")
struct PlaceStoreSideBySideTests {
    @Test("the same nearby pages, distances equal to the bit")
    func sameAnswers() async throws {
        try await withStore(.sqlite) { sqlite in
            try await withStore(.postgres) { postgres in
                let left = try await PlaceStoreSearchTests.seed(sqlite)
                let right = try await PlaceStoreSearchTests.seed(postgres)
                #expect(left.map(\.id) == right.map(\.id))
                var random = SeededGenerator(seed: 31)
                for round in 0..<40 {
                    let centre = PlaceStoreSearchTests.centres[round % PlaceStoreSearchTests.centres.count]
                    let (lat, lng) = PlaceStoreSearchTests.point(near: centre, spread: 0.25, using: &random)
                    let query = NearbyQuery(lat: lat, lng: lng, radiusM: [2_000, 30_000][round % 2], limit: 9)
                    let a = try await sqlite.store.allNearbyPages(query)
                    let b = try await postgres.store.allNearbyPages(query)
                    #expect(a.map(\.place.id) == b.map(\.place.id), "round \(round)")
                    #expect(a.map(\.distanceM.bitPattern) == b.map(\.distanceM.bitPattern), "round \(round)")
                    #expect(a.map(\.place.name) == b.map(\.place.name))
                }
            }
        }
    }
}

/// The PostgreSQL engine's start-up errors name the problem.
@Suite("PostgreSQL engine start-up")
struct PostgresEngineStartTests {
    @Test("database URLs: parts percent-decoded, defaults, and errors that say what is wrong")
    func parsesURLs() throws {
        let url = try PostgresDatabaseURL("postgres://bm%40x:p%40ss%3Aw%2Frd@db.example:6543/places%20db")
        #expect(
            url
                == PostgresDatabaseURL(
                    host: "db.example", port: 6543, username: "bm@x", password: "p@ss:w/rd", database: "places db"))
        #expect(!url.redacted.contains("p@ss"))
        #expect(
            try PostgresDatabaseURL("postgresql://me@[::1]")
                == PostgresDatabaseURL(host: "::1", username: "me", password: nil, database: "me"))
        for (text, reason) in [
            ("mysql://me@host/db", "scheme"), ("postgres:///db", "host"), ("postgres://host/db", "user"),
            ("postgres://me@host/a/b", "one database"),
        ] {
            #expect(throws: PostgresEngineError.self) { try PostgresDatabaseURL(text) }
            do { _ = try PostgresDatabaseURL(text) } catch { #expect("\(error)".contains(reason), "\(text): \(error)") }
        }
    }

    @Test("an unreachable server, a missing database and a bad schema name are told apart")
    func startErrors() async throws {
        let base = try testDatabaseURL()
        var closed = base
        closed.port = 1
        do {
            _ = try await PostgresEngine.open(url: closed)
            Issue.record("opening a closed port must fail")
        } catch let error as PostgresEngineError {
            #expect("\(error)".hasPrefix("cannot reach the PostgreSQL server at \(base.host):1"), "\(error)")
        }
        var missing = base
        missing.database = "no_such_database"
        await #expect(throws: PostgresEngineError.databaseMissing("no_such_database")) {
            _ = try await PostgresEngine.open(url: missing)
        }
        await #expect(throws: PostgresEngineError.invalidSchema("Bad-Name")) {
            _ = try await PostgresEngine.open(url: base, schema: "Bad-Name")
        }
    }

    /// scripts/postgres makes `burgermap_password` log in with a password (scram-sha-256), and
    /// `burgermap_plain`, who may not create extensions, owner of a database without PostGIS.
    @Test("a wrong password, a missing password and a database without PostGIS are told apart")
    func loginAndPostGISErrors() async throws {
        let base = try testDatabaseURL()
        var wrong = base
        wrong.username = "burgermap_password"
        wrong.password = "wrong-password"
        do {
            _ = try await PostgresEngine.open(url: wrong)
            Issue.record("a wrong password must be refused")
        } catch let error as PostgresEngineError {
            guard case .authenticationFailed(let user, _) = error else {
                Issue.record("expected a refused login, got \(error)")
                return
            }
            #expect(user == "burgermap_password")
            #expect("\(error)".contains("wrong password"))
            #expect(!"\(error)".contains("wrong-password"), "the message never repeats the password")
        }
        var none = wrong
        none.password = nil
        await #expect(throws: PostgresEngineError.passwordRequired(user: "burgermap_password")) {
            _ = try await PostgresEngine.open(url: none)
        }
        var right = wrong
        right.password = "right-password"
        let schema = "test_password_" + String(UInt32.random(in: 0...UInt32.max))
        try await PostgresEngine.withEngine(url: right, schema: schema) { engine in
            #expect(await engine.health.isReachable())
        }
        var plain = base
        plain.username = "burgermap_plain"
        plain.database = "burgermap_plain"
        do {
            _ = try await PostgresEngine.open(url: plain)
            Issue.record("a database without PostGIS, which the user may not create, must be refused")
        } catch let error as PostgresEngineError {
            guard case .postgisUnavailable = error else {
                Issue.record("expected PostGIS to be reported missing, got \(error)")
                return
            }
            #expect("\(error)".contains("install postgresql-15-postgis-3"))
        }
    }

    @Test("the outage monitor checks on its own connection: a pool with every connection busy is not an outage")
    func busyPoolIsNoOutage() async throws {
        let schema = "test_busy_" + String(UInt32.random(in: 0...UInt32.max))
        var logger = Logger(label: "burgermap-tests")
        logger.logLevel = .critical
        let quiet = logger
        try await PostgresEngine.withEngine(url: try testDatabaseURL(), schema: schema, maximumConnections: 1) {
            engine in
            let health = PostgresStoreHealth(
                pool: engine.pool, probeConfiguration: engine.health.probeConfiguration, logger: quiet,
                timeout: .milliseconds(500))
            let probe = PostgresStoreHealth.Probe(configuration: health.probeConfiguration, logger: quiet)
            // The pool's one connection stays leased until the checks are done.
            let (held, release) = AsyncStream<Void>.makeStream()
            let (leased, leasedSignal) = AsyncStream<Void>.makeStream()
            async let holder: Void = engine.pool.withConnection { _ in
                leasedSignal.yield()
                for await _ in held { break }
            }
            for await _ in leased { break }
            // Through the pool, the check waits for the busy connection and gives up.
            #expect(await !health.isReachable())
            var timeouts = 0
            #expect(await health.check(on: probe, timeoutsInARow: &timeouts))
            #expect(await health.check(on: probe, timeoutsInARow: &timeouts))
            #expect(timeouts == 0)
            release.yield()
            try await holder
            await probe.close()
            try await engine.pool.query("DROP SCHEMA \(unescaped: schema) CASCADE")
        }
    }
}
