import Logging
import PostgresNIO
import Testing

@testable import BurgerMapPostgres

/// The engine's own pool on a real server: waiting, cancelling, a session the server ended, a
/// server that refuses, idle connections closed, a closed pool, and rows dropped unread. Every
/// test has a time limit: a connection never given back shows as a lease waiting for ever.
@Suite("PostgreSQL pool", .timeLimit(.minutes(1)))
struct PostgresPoolTests {
    static let quiet: Logger = {
        var logger = Logger(label: "burgermap-tests")
        logger.logLevel = .critical
        return logger
    }()

    static func configuration(port: Int? = nil) throws -> PostgresConnection.Configuration {
        let url = try testDatabaseURL()
        return .init(
            host: url.host, port: port ?? url.port, username: url.username, password: url.password,
            database: url.database, tls: .disable)
    }

    /// A pool of `maximum` connections, running while `body` runs.
    static func withPool<Result: Sendable>(
        maximum: Int, port: Int? = nil, _ body: @Sendable (PostgresPool) async throws -> Result
    ) async throws -> Result {
        let pool = PostgresPool(
            configuration: .init(connection: try configuration(port: port), maximumConnections: maximum),
            logger: quiet)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await pool.run() }
            defer { group.cancelAll() }
            return try await body(pool)
        }
    }

    static func backendPID(_ pool: PostgresPool) async throws -> Int32 {
        for try await pid in try await pool.query("SELECT pg_backend_pid()").decode(Int32.self) { return pid }
        throw PostgresPoolTestFailure.noRow
    }

    /// Runs `body` while another task holds one of the pool's connections (its backend's pid
    /// given to `body`), then gives the connection back and waits for that task to end.
    static func whileHeld<Result: Sendable>(_ pool: PostgresPool, _ body: (Int32) async throws -> Result)
        async throws -> Result
    {
        let (held, heldSignal) = AsyncStream<Int32>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        async let holder: Void = pool.withConnection { connection in
            for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: quiet)
                .decode(Int32.self)
            {
                heldSignal.yield(pid)
            }
            for await _ in release {}
        }
        var pids = held.makeAsyncIterator()
        let result: Result
        do {
            guard let pid = await pids.next() else { throw PostgresPoolTestFailure.noRow }
            result = try await body(pid)
        } catch {
            releaseSignal.finish()
            try await holder
            throw error
        }
        releaseSignal.finish()
        try await holder
        return result
    }

    /// A lease started in a task of its own, returned once the pool counts it as waiting (no
    /// clock: the task only needs turns to get there).
    static func waitingLease(_ pool: PostgresPool) async -> Task<Int32, any Error> {
        let waiter = Task { try await backendPID(pool) }
        while pool.counts.waiting != 1 { await Task.yield() }
        return waiter
    }

    @Test("a lease beyond the maximum waits, and gets the connection given back first")
    func waitsForTheConnectionGivenBack() async throws {
        try await Self.withPool(maximum: 1) { pool in
            let (first, waiter) = try await Self.whileHeld(pool) { pid in
                let waiter = await Self.waitingLease(pool)
                #expect(pool.counts.open == 1)
                return (pid, waiter)
            }
            #expect(try await waiter.value == first)
            #expect(pool.counts == (open: 1, idle: 1, waiting: 0))
        }
    }

    @Test("a waiting lease cancelled throws CancellationError, and the connection goes back idle")
    func cancelledWhileWaiting() async throws {
        try await Self.withPool(maximum: 1) { pool in
            try await Self.whileHeld(pool) { _ in
                let waiter = await Self.waitingLease(pool)
                waiter.cancel()
                await #expect(throws: CancellationError.self) { try await waiter.value }
                #expect(pool.counts == (open: 1, idle: 0, waiting: 0))
            }
            #expect(pool.counts == (open: 1, idle: 1, waiting: 0))
        }
    }

    @Test("a connection whose session the server ended is replaced at the next lease")
    func sessionEndedByTheServer() async throws {
        try await Self.withPool(maximum: 1) { pool in
            let connection = try await pool.withConnection { $0 }
            let first = try await Self.backendPID(pool)
            let observer = try await PostgresConnection.connect(
                configuration: try Self.configuration(), id: 1, logger: Self.quiet)
            try await observer.query("SELECT pg_terminate_backend(\(first))", logger: Self.quiet)
            try await observer.close()
            try await connection.closeFuture.get()
            let second = try await Self.backendPID(pool)
            #expect(second != first)
            #expect(pool.counts == (open: 1, idle: 1, waiting: 0))
        }
    }

    @Test("a server that refuses fails each query at once with the connection's error, an outage")
    func refusedServer() async throws {
        // Nothing listens on port 1.
        try await Self.withPool(maximum: 1, port: 1) { pool in
            for _ in 0..<2 {
                let error = await #expect(throws: PSQLError.self) { try await Self.backendPID(pool) }
                #expect(error?.code == .connectionError)
                #expect(error.map(PostgresStoreHealth.isConnectionLost) == true)
                #expect(pool.counts == (open: 0, idle: 0, waiting: 0))
            }
        }
    }

    @Test("idle connections are closed after the idle timeout, and the next query opens another")
    func idleConnectionsClosed() async throws {
        try await Self.withPool(maximum: 2) { pool in
            let first = try await Self.backendPID(pool)
            #expect(pool.closeIdle(before: .now - .seconds(60)) == 0)
            #expect(pool.counts == (open: 1, idle: 1, waiting: 0))
            #expect(pool.closeIdle(before: .now + .seconds(1)) == 1)
            #expect(pool.counts == (open: 0, idle: 0, waiting: 0))
            #expect(try await Self.backendPID(pool) != first)
        }
    }

    @Test("a closed pool fails waiting and new leases as an outage, and closes the connection given back")
    func closedPool() async throws {
        try await Self.withPool(maximum: 1) { pool in
            try await Self.whileHeld(pool) { _ in
                let waiter = await Self.waitingLease(pool)
                pool.close()
                await #expect(throws: PostgresPoolError.closed) { try await waiter.value }
                await #expect(throws: PostgresPoolError.closed) { try await Self.backendPID(pool) }
                #expect(PostgresStoreHealth.isConnectionLost(PostgresPoolError.closed))
            }
            #expect(pool.counts == (open: 0, idle: 0, waiting: 0))
        }
    }

    @Test("rows dropped unread, or left after the first, give their connection back")
    func rowsDroppedUnread() async throws {
        try await Self.withPool(maximum: 1) { pool in
            try await pool.query("SELECT generate_series(1, 100000)")
            for try await value in try await pool.query("SELECT generate_series(1, 100000)").decode(Int32.self) {
                #expect(value == 1)
                break
            }
            let pid = try await Self.backendPID(pool)
            #expect(try await Self.backendPID(pool) == pid)
            #expect(pool.counts == (open: 1, idle: 1, waiting: 0))
        }
    }
}

enum PostgresPoolTestFailure: Error {
    case noRow
}
