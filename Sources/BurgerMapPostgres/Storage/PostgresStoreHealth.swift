import BurgerMapCore
import Logging
import PostgresNIO
import Synchronization

/// Whether the PostgreSQL server answers (`GET /health`), and the last answer of a check that
/// runs every second (`monitor`), which turns requests away with `503` while the server is gone.
///
/// The monitor checks on a connection of its own, not through the pool: with every pooled
/// connection busy (50 clients liking at once under a load average of 7), its `SELECT 1` waited
/// behind them past the timeout and the service declared an outage it did not have. A check that
/// only times out must do so twice in a row; a refused or broken connection counts at once.
public struct PostgresStoreHealth: StoreHealth {
    let pool: PostgresPool
    /// Where the monitor's own connection goes (the pool's server, user and schema).
    let probeConfiguration: PostgresConnection.Configuration
    let logger: Logger
    /// How long to wait for the answer: a server that is gone may leave a query waiting for a
    /// connection or an answer far longer than a health check may take.
    var timeout: Duration = .seconds(2)
    /// The last check's answer, shared by every copy of this value.
    private let available = Availability()

    init(
        pool: PostgresPool, probeConfiguration: PostgresConnection.Configuration, logger: Logger,
        timeout: Duration = .seconds(2)
    ) {
        self.pool = pool
        var probeConfiguration = probeConfiguration
        probeConfiguration.options.connectTimeout = .init(timeout)
        self.probeConfiguration = probeConfiguration
        self.logger = logger
        self.timeout = timeout
    }

    public var isAvailable: Bool { available.value.load(ordering: .relaxed) }

    /// The monitor checks every second (`monitor(every:)`).
    public var checksInBackground: Bool { true }

    /// Errors of a connection that is gone: the server went away under a query.
    public func isOutage(_ error: any Error) -> Bool { Self.isConnectionLost(error) }

    /// Whether `error` says the server went away under a query (or could not be reached).
    static func isConnectionLost(_ error: any Error) -> Bool {
        if error is PostgresPoolError { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed:
            return true
        default:
            // The server ended the session (57P01 `admin_shutdown`, a restart, a terminated
            // backend) or the connection failed (class 08): the next attempt reconnects.
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("57P") || state.hasPrefix("08")
        }
    }

    /// SQLSTATE 53100 (`disk_full`) and 25006 (`read_only_sql_transaction`: a read-only
    /// server, a standby, `default_transaction_read_only`) are faults of the machine.
    public func storageFault(_ error: any Error) -> StorageFault? {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return nil }
        switch state {
        case "53100": return StorageFault(.full, .database)
        case "25006": return StorageFault(.readOnly, .database)
        default: return nil
        }
    }

    /// Writes a new version of one row of `burgermap_migrations` (the value it had), in a
    /// transaction of its own: it fails exactly when other writes would.
    public func probeWrite() async -> StorageFault? {
        do {
            try await pool.query(
                """
                UPDATE burgermap_migrations SET name = name
                WHERE name = (SELECT min(name) FROM burgermap_migrations)
                """, logger: logger)
            return nil
        } catch {
            return storageFault(error) ?? (isOutage(error) ? nil : StorageFault(.readOnly, .database))
        }
    }

    /// Checks the server every `interval` until cancelled, on its own connection (opened again
    /// after a failure), logging each change.
    func monitor(every interval: Duration = .seconds(1)) async {
        let probe = Probe(configuration: probeConfiguration, logger: logger)
        var timeouts = 0
        while !Task.isCancelled {
            let reachable = await check(on: probe, timeoutsInARow: &timeouts)
            let was = available.value.exchange(reachable, ordering: .relaxed)
            if was != reachable {
                if reachable {
                    logger.notice("database reachable again: serving requests")
                } else {
                    logger.error("database unreachable: answering 503 until it is back")
                }
            }
            try? await Task.sleep(for: interval)
        }
        await probe.close()
    }

    /// One check of the monitor: whether to serve, given the probe's outcome and how many
    /// checks before it timed out in a row.
    func check(on probe: Probe, timeoutsInARow timeouts: inout Int) async -> Bool {
        switch await probe.check(within: timeout) {
        case .answered:
            timeouts = 0
            return true
        case .failed:
            return false
        case .timedOut:
            timeouts += 1
            return timeouts < 2 && available.value.load(ordering: .relaxed)
        }
    }

    /// The last answer, in a reference all copies share.
    private final class Availability: Sendable {
        let value = Atomic<Bool>(true)
    }

    /// Answers whether `SELECT 1` comes back within the timeout.
    public func isReachable() async -> Bool {
        let pool = pool
        let logger = logger
        return await Self.firstAnswer(within: timeout, onTimeout: false) {
            (try? await Self.answersOne(pool.query("SELECT 1", logger: logger))) ?? false
        }
    }

    /// Whether the rows of `SELECT 1` hold the one.
    static func answersOne(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> Bool {
        for try await one in rows.decode(Int32.self) { return one == 1 }
        return false
    }

    /// What `operation` answers, or `onTimeout` once `timeout` has passed. The operation runs in a
    /// task of its own that is cancelled but not awaited after a timeout: postgres-nio gives up
    /// waiting for a pooled connection when cancelled, but not on a query already sent, and the
    /// caller must not wait for that.
    static func firstAnswer<Value: Sendable>(
        within timeout: Duration, onTimeout: Value, _ operation: @escaping @Sendable () async -> Value
    ) async -> Value {
        let answer = FirstAnswer<Value>()
        var tasks: [Task<Void, Never>] = []
        let value = await withCheckedContinuation { continuation in
            answer.wait(continuation)
            tasks.append(Task { answer.give(await operation()) })
            tasks.append(
                Task {
                    try? await Task.sleep(for: timeout)
                    answer.give(onTimeout)
                })
        }
        for task in tasks { task.cancel() }
        return value
    }

    /// The monitor's connection: opened when a check needs it, closed after any failure (a
    /// check that timed out may have left it waiting on a server that is gone).
    final class Probe: Sendable {
        enum Outcome: Sendable { case answered, failed, timedOut }

        let configuration: PostgresConnection.Configuration
        let logger: Logger
        private let connection = Mutex<PostgresConnection?>(nil)

        init(configuration: PostgresConnection.Configuration, logger: Logger) {
            self.configuration = configuration
            self.logger = logger
        }

        func check(within timeout: Duration) async -> Outcome {
            let outcome = await PostgresStoreHealth.firstAnswer(within: timeout, onTimeout: Outcome.timedOut) {
                await self.selectOne()
            }
            if outcome != .answered { await close() }
            return outcome
        }

        func close() async {
            let open = connection.withLock { connection in
                defer { connection = nil }
                return connection
            }
            try? await open?.close()
        }

        /// Runs `body` on the probe's connection, opened first when there is none or the server
        /// closed it (the read replicas' monitors ask their own questions on it). A query sent on
        /// a connection the server closed (a fast shutdown) waited for the whole timeout: a
        /// stopped replica then took 2.1 s to be skipped instead of 0.1 s.
        ///
        /// The primary's own check keeps a closed connection (`reopensClosed` false): its query
        /// fails, the database counts as away for that round, and requests are answered `503`
        /// at once while the pool, whose sessions the server ended too, reconnects. With the
        /// check reopening at once, a write sent right after every session was ended once
        /// waited on the pool past a client's 15 s in CI (`scripts/fault-check`, PostgreSQL
        /// read-only).
        func withConnection<Value>(
            reopensClosed: Bool = true, _ body: (PostgresConnection) async throws -> Value
        ) async throws -> Value {
            let open: PostgresConnection
            if let existing = connection.withLock({ $0 }), !reopensClosed || !existing.isClosed {
                open = existing
            } else {
                open = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                let stale = connection.withLock { connection in
                    defer { connection = open }
                    return connection
                }
                try? await stale?.close()
            }
            return try await body(open)
        }

        private func selectOne() async -> Outcome {
            do {
                return try await withConnection(reopensClosed: false) { open in
                    try await PostgresStoreHealth.answersOne(open.query("SELECT 1", logger: logger))
                } ? .answered : .failed
            } catch {
                return .failed
            }
        }
    }
}
