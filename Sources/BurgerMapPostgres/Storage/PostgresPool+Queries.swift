import Logging
import PostgresNIO
import Synchronization

/// The pool's queries, named and shaped as postgres-nio's `PostgresClient`'s, so that a store
/// reads the same on a pooled query as on a held connection.
extension PostgresPool {
    /// The logger of a query given none: nothing logged, as with postgres-nio's client.
    public static let quiet = Logger(label: "burgermap.postgres.quiet", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `query` on a connection of the pool; the connection goes back when its rows have
    /// been read (or failed, or the rows are dropped unread).
    @discardableResult
    public func query(
        _ query: PostgresQuery, logger: Logger = PostgresPool.quiet, file: String = #fileID, line: Int = #line
    ) async throws -> PooledRows<PostgresRowSequence> {
        try await leased { try await $0.query(query, logger: logger, file: file, line: line) }
    }

    /// Runs a prepared statement (prepared on each connection the first time it meets it).
    public func execute<Statement: PostgresPreparedStatement, Row>(
        _ statement: Statement, logger: Logger = PostgresPool.quiet, file: String = #fileID, line: Int = #line
    ) async throws -> PooledRows<AsyncThrowingMapSequence<PostgresRowSequence, Row>> where Row == Statement.Row {
        try await leased { try await $0.execute(statement, logger: logger, file: file, line: line) }
    }

    /// The rows `start` begins on a connection of the pool, which they keep until read; the
    /// connection goes back at once when `start` fails.
    private func leased<Base: AsyncSequence & Sendable>(_ start: (PostgresConnection) async throws -> Base) async throws
        -> PooledRows<Base>
    {
        let lease = ConnectionLease(try await self.lease(), pool: self)
        do {
            return PooledRows(base: try await start(lease.connection), lease: lease)
        } catch {
            lease.release()
            throw error
        }
    }

    /// Runs `body` with a connection of the pool, given back when it returns. `body` must not
    /// keep the connection, nor rows still unread.
    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let connection = try await lease()
        defer { release(connection) }
        return try await body(connection)
    }

    /// Runs `body` in a transaction on a connection of the pool: committed when it returns,
    /// rolled back when it throws (postgres-nio's `withTransaction`).
    public func withTransaction<Result>(
        logger: Logger, file: String = #file, line: Int = #line, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await withConnection(isolation: isolation) { connection in
            try await connection.withTransaction(logger: logger, file: file, line: line, isolation: isolation, body)
        }
    }
}

/// A connection lent by a pool, given back once: by the rows when they end, or when the last
/// reference goes.
final class ConnectionLease: Sendable {
    let connection: PostgresConnection
    let pool: PostgresPool
    private let released = Atomic<Bool>(false)

    init(_ connection: PostgresConnection, pool: PostgresPool) {
        self.connection = connection
        self.pool = pool
    }

    func release() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) { pool.release(connection) }
    }

    deinit { release() }
}

/// The rows of a pooled query. The connection stays lent while they are read, as with
/// postgres-nio's client: a connection given back with rows still arriving would put the next
/// lease's query behind them, and a task that read one result while it waited for another on the
/// same connection would wait for ever. Dropped unread, the rows are discarded by the connection
/// and the lease ends with them.
public struct PooledRows<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable {
    public typealias Element = Base.Element
    let base: Base
    let lease: ConnectionLease

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), lease: lease)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let lease: ConnectionLease

        public mutating func next() async throws -> Base.Element? {
            do {
                guard let element = try await base.next() else {
                    lease.release()
                    return nil
                }
                return element
            } catch {
                lease.release()
                throw error
            }
        }
    }
}

extension PooledRows {
    /// The rows read through `transform`, the lease kept as it is.
    public func map<Transformed>(
        _ transform: @escaping @Sendable (Element) throws -> Transformed
    ) -> PooledRows<AsyncThrowingMapSequence<Base, Transformed>> {
        PooledRows<AsyncThrowingMapSequence<Base, Transformed>>(base: base.map(transform), lease: lease)
    }
}

extension PooledRows where Element == PostgresRow {
    /// Every row, read now.
    public func collect() async throws -> [PostgresRow] {
        var rows: [PostgresRow] = []
        for try await row in self { rows.append(row) }
        return rows
    }
}
