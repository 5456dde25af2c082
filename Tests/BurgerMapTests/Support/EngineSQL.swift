import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import GRDB
import PostgresNIO

@testable import BurgerMapSQLite

/// Plain SQL against whichever engine an environment runs on, for assertions about what is
/// stored (statements the two engines read alike; values written inline are the tests' own).
extension TestEnvironment {
    /// The first column of the first row, as an integer.
    func int(_ sql: String) async throws -> Int64? {
        if let postgres {
            for try await value in try await postgres.pool.query(PostgresQuery(unsafeSQL: sql)).decode(Int64?.self) {
                return value
            }
            return nil
        }
        return try await database.pool.read { db in try Int64.fetchOne(db, sql: sql) }
    }

    /// The first column of the first row, as text.
    func text(_ sql: String) async throws -> String? {
        if let postgres {
            for try await value in try await postgres.pool.query(PostgresQuery(unsafeSQL: sql)).decode(String?.self) {
                return value
            }
            return nil
        }
        return try await database.pool.read { db in try String.fetchOne(db, sql: sql) }
    }

    /// Runs a statement.
    func execute(_ sql: String) async throws {
        if let postgres {
            try await postgres.pool.query(PostgresQuery(unsafeSQL: sql))
            return
        }
        try await database.pool.write { db in try db.execute(sql: sql) }
    }

    /// The number of rows of `table` (a name from the schema).
    func rowCount(_ table: String) async throws -> Int {
        Int(try await int("SELECT count(*) FROM \(table)") ?? 0)
    }
}
