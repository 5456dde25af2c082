import Logging
import PostgresNIO

extension PostgresPool {
    /// `withTransaction`, rethrowing the error that failed the transaction rather than
    /// postgres-nio's `PostgresTransactionError` wrapper, so that the engine's callers catch the
    /// same errors as on SQLite (`AccountConflict`, or whatever a `beforeCommit` step threw).
    func transaction<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            return try await withTransaction(logger: logger, isolation: isolation, body)
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }
}

extension PostgresPool {
    /// Runs `body` in a read-only REPEATABLE READ transaction, so that all its reads see one
    /// snapshot, begun by one statement (`withTransaction` followed by `SET TRANSACTION` took
    /// two round trips). A body that fails is rolled back, as `withTransaction` does, and its
    /// own error rethrown.
    func readOnlySnapshot<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await withConnection(isolation: isolation) { connection in
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            let value: Result
            do {
                value = try await body(connection)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
            try await connection.query("COMMIT", logger: logger)
            return value
        }
    }
}

/// The constraint a statement violated, when it failed on a unique key (SQLSTATE 23505).
func uniqueViolation(_ error: any Error) -> String? {
    guard let error = error as? PSQLError, error.code == .server, let info = error.serverInfo,
        info[.sqlState] == "23505"
    else { return nil }
    return info[.constraintName]
}
