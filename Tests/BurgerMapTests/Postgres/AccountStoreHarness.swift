import Foundation
import Logging
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// One instance's account-side stores on an engine under test, with what the tests need beside
/// the store APIs.
struct AccountInstance: Sendable {
    let accounts: any AccountStore
    let throttle: any LoginThrottleStore
    let photos: any PhotoStore
    let health: any StoreHealth
    /// Makes `follower` follow `followee` straight in the database (the social store is
    /// another feature's), so that profile counts have something to count.
    let follow: @Sendable (_ follower: Int64, _ followee: Int64) async throws -> Void

    init(_ database: AppDatabase) {
        accounts = database
        throttle = database
        photos = database
        health = database
        follow = { follower, followee in
            try await database.pool.write { db in
                try db.execute(
                    sql: "INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, 0)",
                    arguments: [follower, followee])
            }
        }
    }

    init(_ engine: PostgresEngine) {
        accounts = engine.accounts
        throttle = engine.throttle
        photos = engine.photos
        health = engine.health
        follow = { follower, followee in
            try await engine.pool.query(
                "INSERT INTO follows (follower_id, followee_id, created_at) VALUES (\(follower), \(followee), 0)")
        }
    }
}

/// Runs `body` on a fresh database of `engine` (see `withStore`).
func withAccountInstance(_ engine: StoreEngine, _ body: @Sendable (AccountInstance) async throws -> Void)
    async throws
{
    switch engine {
    case .sqlite:
        let environment = try TestEnvironment()
        try await body(AccountInstance(environment.database))
        withExtendedLifetime(environment) {}
    case .postgres:
        try await withPostgresEngine { engine in try await body(AccountInstance(engine)) }
    }
}

/// Runs `body` with two instances on one fresh database, as two processes of the service would
/// share it: two SQLite pools on one file, or two PostgreSQL engines (pools) on one schema.
func withTwoAccountInstances(
    _ engine: StoreEngine, _ body: @Sendable (AccountInstance, AccountInstance) async throws -> Void
) async throws {
    switch engine {
    case .sqlite:
        let environment = try TestEnvironment()
        let second = try AppDatabase(path: environment.database.path)
        try await body(AccountInstance(environment.database), AccountInstance(second))
        withExtendedLifetime(environment) {}
    case .postgres:
        try await withPostgresEngine { first in
            var logger = Logger(label: "burgermap-tests.postgres")
            logger.logLevel = .error
            try await PostgresEngine.withEngine(
                url: first.url, schema: first.schema, maximumConnections: 4, logger: logger
            ) { second in
                try await body(AccountInstance(first), AccountInstance(second))
            }
        }
    }
}

/// A moment to write at: `seconds` after a fixed start.
func secondsIn(_ seconds: Int64) -> Timestamp {
    Timestamp(milliseconds: 1_800_000_000_000 + seconds * 1000)
}

/// A refresh token's stand-in hash (tokens are stored as 32-byte hashes only).
func tokenHash(_ n: UInt8) -> [UInt8] {
    [UInt8](repeating: n, count: 32)
}
