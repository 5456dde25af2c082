import Foundation
import Logging
import PostgresNIO
import Testing

@testable import BurgerMapPostgres

/// The engine's pool as the server sees it (`pg_stat_activity`, read on a connection of the
/// test's own): every connection opened at start under the pool's name and kept, and the
/// keep-alive's pings.
@Suite("PostgreSQL pool")
struct PostgresPoolTests {
    @Test("the pool opens all its connections before any query, keeps them, and a ping reaches an idle one")
    func opensKeepsAndPings() async throws {
        let schema = "test_pool_" + String(UInt32.random(in: 0...UInt32.max))
        var logger = Logger(label: "burgermap-tests")
        logger.logLevel = .critical
        let quiet = logger
        let name = PostgresPool.applicationName(schema: schema)
        let url = try testDatabaseURL()
        let observer = try await PostgresConnection.connect(
            configuration: .init(
                host: url.host, port: url.port, username: url.username, password: url.password,
                database: url.database, tls: .disable),
            id: 1, logger: quiet)
        @Sendable func backends() async throws -> [(pid: Int32, query: String)] {
            let rows = try await observer.query(
                "SELECT pid, query FROM pg_stat_activity WHERE application_name = \(name) ORDER BY pid",
                logger: quiet)
            var found: [(pid: Int32, query: String)] = []
            for try await (pid, query) in rows.decode((Int32, String).self) { found.append((pid, query)) }
            return found
        }
        try await PostgresEngine.withEngine(url: url, schema: schema, maximumConnections: 3, logger: quiet) { engine in
            // No query has gone through the pool yet: the three connections come up by themselves
            // (a condition, polled every 10 ms, up to 30 s).
            let deadline = ContinuousClock.now + .seconds(30)
            var opened = try await backends()
            while opened.count < 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                opened = try await backends()
            }
            #expect(opened.count == 3)
            // Three leases at once take the three connections; the pool opens no fourth.
            let leased = try await engine.client.withConnection { first in
                try await engine.client.withConnection { second in
                    try await engine.client.withConnection { third in
                        var pids: [Int32] = []
                        for connection in [first, second, third] {
                            for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: quiet)
                                .decode(Int32.self)
                            {
                                pids.append(pid)
                            }
                        }
                        return pids.sorted()
                    }
                }
            }
            #expect(leased == opened.map(\.pid))
            // Given back, they stay open; one ping takes one idle connection.
            await PostgresPool.ping(engine.client, connections: 1, logger: quiet)
            let after = try await backends()
            #expect(after.map(\.pid) == leased)
            #expect(after.filter { $0.query == PostgresPool.pingStatement }.count == 1)
            #expect(after.filter { $0.query == "SELECT pg_backend_pid()" }.count == 2)
            try await engine.client.query("DROP SCHEMA \(unescaped: schema) CASCADE")
        }
        try await observer.close()
    }
}
