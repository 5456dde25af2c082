import BurgerMapCore
import Logging
import PostgresNIO

/// A statement whose text is the same on every call (every value bound), named so that it runs
/// as a prepared statement: `text` builds it once from the same code that builds each call's.
///
/// Sent as an unnamed statement, the feed's page was parsed (0.35–0.5 ms) and planned at bind
/// (1.2–1.6 ms) on every request before it ran (0.5–0.8 ms), in PostgreSQL's own log
/// (`log_min_duration_statement = 0`, `scripts/bench-ceiling`'s feed); the signed-in user's row,
/// read by every authenticated request, 0.1 ms parse and 0.12 ms bind for 0.03 ms of work.
/// Prepared, each pool connection parses a statement once, and after five executions with
/// custom plans PostgreSQL keeps a generic plan when it does not look costlier (`EXPLAIN ANALYZE
/// EXECUTE`: planning 2.9 ms the first time, 0.06 ms after).
protocol PreparedText: Sendable {
    /// The statement's name on each connection.
    static var name: String { get }
    /// The statement, built once from representative values (a `static let`; only its text is
    /// used).
    static var text: PostgresQuery { get }
}

/// `PreparedText` as postgres-nio's prepared statement, with one call's values.
struct PreparedTextStatement<Text: PreparedText>: PostgresPreparedStatement {
    static var name: String { Text.name }
    static var sql: String { Text.text.sql }
    typealias Row = PostgresRow

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresConnection {
    /// Runs `query`, calling `each` for every row: as the prepared statement `text` when its
    /// text is `text`'s, otherwise (no `text`, or a call whose text differs, such as a test's
    /// other window) as a plain query.
    func forEachRow(
        _ query: PostgresQuery, preparedAs text: (any PreparedText.Type)?, logger: Logger,
        _ each: (PostgresRow) throws -> Void
    ) async throws {
        if let text, query.sql == text.text.sql {
            try await forEachPreparedRow(query, text, logger: logger, each)
        } else {
            for try await row in try await self.query(query, logger: logger) {
                try each(row)
            }
        }
    }

    private func forEachPreparedRow<Text: PreparedText>(
        _ query: PostgresQuery, _ text: Text.Type, logger: Logger, _ each: (PostgresRow) throws -> Void
    ) async throws {
        for try await row in try await execute(PreparedTextStatement<Text>(bindings: query.binds), logger: logger) {
            try each(row)
        }
    }
}
