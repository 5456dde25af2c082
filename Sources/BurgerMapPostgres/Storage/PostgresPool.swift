import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The engine's pool of PostgreSQL connections (the primary's, and one per read replica): up to
/// `maximumConnections` sessions, opened when a query needs one and none is idle, reused most
/// recently released first, closed after `idleTimeout` unused.
///
/// Why not postgres-nio's `PostgresClient`: its pool (1.33.2) schedules a keep-alive timer, and
/// for a connection above its minimum an idle timer too, each time a query gives its connection
/// back, and cancels them at the next lease; each timer wakes the pool's run loop, which starts a
/// task with two children. Measured on this 2-core machine (`burgermap-bench postgres-round-trip`,
/// 3,000 queries, two rounds), with both timers gone: `SELECT 1` through the pool 154–160 µs
/// against 214–253 µs, a nearby search 431–458 µs against 549–663 µs, the client's CPU 1.3
/// against 2.1–2.3 s. Switching the timers off in its configuration (every connection a minimum
/// one) left the pool behind its connection-creation circuit breaker after a database restart,
/// with a backoff that grows to a minute (docs/performance/postgres-pool.md, "The pool's timers"). Here a
/// release takes a lock and appends to an array, nothing else; idle connections are swept by
/// one loop (`run`), and a connection is opened when a request needs it, so that after an outage
/// the first request reconnects at once and a request during one fails at once with the
/// connection's own error (`PostgresStoreHealth.isOutage`: `503`), never behind a backoff.
///
/// A connection that the server or the network closed is dropped when it comes back or is next
/// taken (`isClosed`), and its slot goes to the next request.
public final class PostgresPool: Service, Sendable {
    /// Where and how to connect, and how many sessions at most.
    public struct Configuration: Sendable {
        public var connection: PostgresConnection.Configuration
        public var maximumConnections: Int
        /// How long a connection may stay idle before `run` closes it.
        public var idleTimeout: Duration = .seconds(60)

        public init(connection: PostgresConnection.Configuration, maximumConnections: Int) {
            precondition(maximumConnections > 0, "a pool needs at least one connection")
            self.connection = connection
            self.maximumConnections = maximumConnections
        }
    }

    public let configuration: Configuration
    let logger: Logger
    private let state = Mutex(State())

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// What a lease is given: a connection to use, or a slot to open one in.
    enum Grant: Sendable {
        case connection(PostgresConnection)
        case open(id: Int)
    }

    struct Idle {
        let connection: PostgresConnection
        let since: ContinuousClock.Instant
    }

    struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Grant, any Error>
    }

    struct State {
        /// Most recently released last: the next lease takes from the end, the sweep from the front.
        var idle: [Idle] = []
        /// Connections open or being opened, idle ones included.
        var open = 0
        /// Leases waiting for a connection, first come first served.
        var waiters: [Waiter] = []
        var lastID = 0
        var closed = false

        /// A connection for a lease, a slot to open one in, or `nil` when every slot is taken.
        /// Idle connections found closed free their slots.
        mutating func take(maximum: Int) throws -> Grant? {
            if closed { throw PostgresPoolError.closed }
            while let last = idle.popLast() {
                if !last.connection.isClosed { return .connection(last.connection) }
                open -= 1
            }
            return open < maximum ? claimSlot() : nil
        }

        /// One more connection counted as open, to be opened by the lease given its id.
        private mutating func claimSlot() -> Grant {
            open += 1
            lastID += 1
            return .open(id: lastID)
        }

        /// A freed slot passed to the first waiter, if any.
        mutating func passSlot() -> (Waiter, Grant)? {
            guard !closed, !waiters.isEmpty else { return nil }
            return (waiters.removeFirst(), claimSlot())
        }
    }

    // MARK: Leases

    /// A connection of the pool, opened when none is idle and a slot is free, or the first one
    /// given back when every slot is taken. Cancelling the task while it waits throws
    /// `CancellationError`; a failure to connect throws the connection's own error.
    func lease() async throws -> PostgresConnection {
        let grant: Grant
        if let ready = try state.withLock({ try $0.take(maximum: configuration.maximumConnections) }) {
            grant = ready
        } else {
            grant = try await waitForGrant()
        }
        switch grant {
        case .connection(let connection): return connection
        case .open(let id): return try await open(id: id)
        }
    }

    private func waitForGrant() async throws -> Grant {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Grant, any Error>? = state.withLock { state in
                    // Checked under the lock that `onCancel` takes: a cancellation either comes
                    // before this check or finds the waiter queued.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    do {
                        if let grant = try state.take(maximum: configuration.maximumConnections) {
                            return .success(grant)
                        }
                    } catch {
                        return .failure(error)
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func open(id: Int) async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.next(), configuration: configuration.connection, id: id,
                logger: logger
            ).get()
        } catch {
            logger.debug("PostgreSQL connection \(id) not opened: \(String(reflecting: error))")
            freeSlot()
            throw error
        }
    }

    /// Gives `connection` back: to the first waiter, or to the idle ones. A closed connection's
    /// slot goes to the first waiter, who opens a new one.
    func release(_ connection: PostgresConnection) {
        enum Next {
            case hand(Waiter, Grant)
            case close
            case none
        }
        let next = state.withLock { state -> Next in
            if state.closed {
                state.open -= 1
                return .close
            }
            if connection.isClosed {
                state.open -= 1
                return state.passSlot().map(Next.hand) ?? .none
            }
            if !state.waiters.isEmpty {
                return .hand(state.waiters.removeFirst(), .connection(connection))
            }
            state.idle.append(Idle(connection: connection, since: .now))
            return .none
        }
        switch next {
        case .hand(let waiter, let grant): waiter.continuation.resume(returning: grant)
        case .close: Self.discard(connection)
        case .none: break
        }
    }

    private func freeSlot() {
        let handed = state.withLock { state -> (Waiter, Grant)? in
            state.open -= 1
            return state.passSlot()
        }
        if let (waiter, grant) = handed { waiter.continuation.resume(returning: grant) }
    }

    // MARK: Running

    /// Closes connections idle longer than `idleTimeout`, every half of it, until the task is
    /// cancelled or the service group shuts down; then closes the pool: idle connections at
    /// once, leased ones as they come back, and waiting leases fail with `PostgresPoolError`.
    public func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: self.configuration.idleTimeout / 2)
                } catch {
                    break
                }
                self.closeIdle(before: .now - self.configuration.idleTimeout)
            }
        }
        close()
    }

    /// Closes the idle connections released before `instant`; how many it closed.
    @discardableResult
    func closeIdle(before instant: ContinuousClock.Instant) -> Int {
        let stale = state.withLock { state -> [Idle] in
            let count = state.idle.prefix { $0.since < instant }.count
            let stale = Array(state.idle.prefix(count))
            state.idle.removeFirst(count)
            state.open -= count
            return stale
        }
        for idle in stale { Self.discard(idle.connection) }
        return stale.count
    }

    func close() {
        let (idle, waiters) = state.withLock { state -> ([Idle], [Waiter]) in
            state.closed = true
            defer {
                state.open -= state.idle.count
                state.idle = []
                state.waiters = []
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: PostgresPoolError.closed) }
        for entry in idle { Self.discard(entry.connection) }
    }

    /// Closes `connection`, kept alive until it is closed (postgres-nio asserts that a
    /// connection is closed before it goes).
    private static func discard(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Connections open or being opened, how many of them are idle, and the leases waiting.
    var counts: (open: Int, idle: Int, waiting: Int) {
        state.withLock { ($0.open, $0.idle.count, $0.waiters.count) }
    }
}

/// A lease asked of a pool that has been closed (the service is stopping).
public enum PostgresPoolError: Error, CustomStringConvertible {
    case closed

    public var description: String { "the PostgreSQL pool is closed" }
}
