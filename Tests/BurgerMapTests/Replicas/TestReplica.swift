import BurgerMapCore
import Foundation
import HummingbirdTesting
import Logging
import PostgresNIO
import Testing

@testable import BurgerMapPostgres

/// The streaming replica that scripts/postgres makes beside the test cluster
/// (`BURGERMAP_TEST_REPLICA_URL`, `BURGERMAP_TEST_REPLICA_CTL`): a hot standby of the whole
/// cluster, so every test schema appears on it once replayed.
enum TestReplica {
    /// Replica options for an engine under test. The monitors check once at start and then
    /// every `checkInterval`: tests call `PostgresReplicas.checkNow()` to know the state a read meets.
    static func options(maximumLag: Duration = .seconds(5), checkInterval: Duration = .seconds(3600)) throws
        -> PostgresReplicaOptions
    {
        guard let text = ProcessInfo.processInfo.environment["BURGERMAP_TEST_REPLICA_URL"], !text.isEmpty else {
            try TestServers.skipUnless(TestServers.postgresRuns)
            throw Missing()
        }
        var options = PostgresReplicaOptions(urls: [try PostgresDatabaseURL(text)], maximumLag: maximumLag)
        options.checkInterval = checkInterval
        options.maximumConnections = 4
        return options
    }

    /// Stops, starts, pauses or resumes the replica (`DIR/replica-ctl ACTION`).
    static func control(_ action: String) throws {
        guard let program = ProcessInfo.processInfo.environment["BURGERMAP_TEST_REPLICA_CTL"] else { throw Missing() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = [action]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "replica-ctl \(action)")
    }

    /// Runs `body` with the replica's replay paused, resuming it whatever happens.
    static func whilePaused<Value>(_ body: () async throws -> Value) async throws -> Value {
        try control("pause")
        do {
            let value = try await body()
            try control("resume")
            return value
        } catch {
            try? control("resume")
            throw error
        }
    }

    /// Waits until the replica has replayed (or, with `receivedOnly`, received) everything the
    /// primary has written so far: a condition, polled every 10 ms, up to 30 s. The primary's
    /// insert position, not its write position: with `synchronous_commit=off` (the test cluster)
    /// a commit's record may still be in the WAL buffers when the commit returns.
    static func waitForPrimary(_ engine: PostgresEngine, receivedOnly: Bool = false) async throws {
        var lsn = ""
        let position = try await engine.pool.query("SELECT pg_current_wal_insert_lsn()::text")
        for try await text in position.decode(String.self) {
            lsn = text
        }
        let options = try options()
        let url = options.urls[0]
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: url.host, port: url.port, username: url.username, password: url.password,
                database: url.database, tls: .disable),
            id: 1, logger: Logger(label: "burgermap-tests.replica"))
        defer { Task { try? await connection.close() } }
        let function = receivedOnly ? "pg_last_wal_receive_lsn()" : "pg_last_wal_replay_lsn()"
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT coalesce(\(function) >= '\(lsn)'::pg_lsn, false)"),
                logger: Logger(label: "burgermap-tests.replica"))
            for try await caughtUp in rows.decode(Bool.self) where caughtUp { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the replica did not \(receivedOnly ? "receive" : "replay") \(lsn) within 30 s")
    }

    /// Checks the replicas until the first is in use (or not), up to 30 s.
    static func waitUntil(inUse: Bool, _ replicas: PostgresReplicas) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            await replicas.checkNow()
            if replicas.statuses[0].isInUse == inUse { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the replica never became \(inUse ? "in use" : "skipped"): \(replicas.statuses)")
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "BURGERMAP_TEST_REPLICA_URL / BURGERMAP_TEST_REPLICA_CTL are not set: run the tests as "
                + "`scripts/postgres swift test`, which starts a cluster and a streaming replica of it"
        }
    }
}

/// Where lag-tolerant reads went so far: `/metrics`' counters.
struct ReadCounts: Equatable, CustomStringConvertible {
    var replica: Double
    var primary: [String: Double]

    init(_ client: any TestClientProtocol) async throws {
        let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
        func value(_ series: String) -> Double {
            for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
                return Double(line.dropFirst(series.count + 1)) ?? 0
            }
            return 0
        }
        replica = value("burgermap_replica_reads_total{replica=\"0\"}")
        primary = Dictionary(
            uniqueKeysWithValues: ReadRoute.PrimaryReason.allCases.map {
                ($0.rawValue, value("burgermap_primary_lag_tolerant_reads_total{reason=\"\($0.rawValue)\"}"))
            })
    }

    /// The reads counted since `before`: on the replica, and on the primary by reason.
    func since(_ before: ReadCounts) -> (replica: Int, primary: [String: Int]) {
        var primary: [String: Int] = [:]
        for (reason, count) in self.primary where count != before.primary[reason, default: 0] {
            primary[reason] = Int(count - before.primary[reason, default: 0])
        }
        return (Int(replica - before.replica), primary)
    }

    var description: String { "replica \(replica), primary \(primary)" }
}
