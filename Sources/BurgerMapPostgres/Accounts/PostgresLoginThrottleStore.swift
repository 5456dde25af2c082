import BurgerMapCore
import Logging
import PostgresNIO

/// Login throttling's records in PostgreSQL, shared by every instance of the service on the
/// database: concurrent failures of one key, from any instance, all count.
public struct PostgresLoginThrottleStore: LoginThrottleStore {
    let pool: PostgresPool
    let logger: Logger

    /// The record columns, in the order `state(_:)` reads them.
    static let columns = "failures, blocked_until, rounds, last_seen, forget_at"

    static func state(_ row: PostgresRandomAccessRow, from first: Int = 0) throws -> ThrottleKeyState {
        ThrottleKeyState(
            failures: try row[first].decode([Int64].self).map(Timestamp.init(milliseconds:)),
            blockedUntil: Timestamp(milliseconds: try row[first + 1].decode(Int64.self)),
            rounds: Int(try row[first + 2].decode(Int32.self)),
            lastSeen: Timestamp(milliseconds: try row[first + 3].decode(Int64.self)),
            forgetAt: Timestamp(milliseconds: try row[first + 4].decode(Int64.self)))
    }

    /// The records of these keys that exist.
    public func throttleStates(_ keys: [String]) async throws -> [String: ThrottleKeyState] {
        let rows = try await pool.query(
            "SELECT key, \(unescaped: Self.columns) FROM login_throttle WHERE key = ANY(\(keys))", logger: logger)
        var states: [String: ThrottleKeyState] = [:]
        for try await row in rows {
            let row = row.makeRandomAccess()
            states[try row[0].decode(String.self)] = try Self.state(row, from: 1)
        }
        return states
    }

    /// Runs `change` on a key's record under a row lock held to the commit (see
    /// `LoginThrottleStore.updateThrottleKey`).
    public func updateThrottleKey<Outcome: Sendable>(
        _ key: String, at time: Timestamp, _ change: @Sendable (inout ThrottleKeyState) -> Outcome
    ) async throws -> Outcome {
        try await pool.transaction(logger: logger) { connection -> Outcome in
            // Inserts an empty record or locks the existing one, in one atomic step even when
            // another instance inserts or deletes the same key meanwhile (a plain SELECT … FOR
            // UPDATE would find nothing to lock for a new key, and two instances would both
            // start from an empty record). The no-op SET leaves the key alone, so the lock is
            // the lighter one that an update of non-key columns takes.
            let rows = try await connection.query(
                """
                INSERT INTO login_throttle AS k (key) VALUES (\(key))
                ON CONFLICT (key) DO UPDATE SET rounds = k.rounds
                RETURNING \(unescaped: Self.columns)
                """, logger: logger)
            var state = ThrottleKeyState()
            for try await row in rows { state = try Self.state(row.makeRandomAccess()) }
            let outcome = change(&state)
            try await connection.query(
                """
                UPDATE login_throttle SET failures = \(state.failures.map(\.milliseconds)),
                    blocked_until = \(state.blockedUntil.milliseconds), rounds = \(Int32(clamping: state.rounds)),
                    last_seen = \(state.lastSeen.milliseconds), forget_at = \(state.forgetAt.milliseconds)
                WHERE key = \(key)
                """, logger: logger)
            // SKIP LOCKED: a record another transaction is updating is left to a later sweep,
            // so that sweeping never waits for, or deadlocks with, another login.
            try await connection.query(
                """
                DELETE FROM login_throttle WHERE key IN (
                    SELECT key FROM login_throttle WHERE forget_at <= \(time.milliseconds)
                    LIMIT \(Int64(ThrottleKeyState.sweepLimit)) FOR UPDATE SKIP LOCKED)
                """, logger: logger)
            return outcome
        }
    }

    /// Deletes a key's record, if it has one.
    public func removeThrottleKey(_ key: String) async throws {
        try await pool.query("DELETE FROM login_throttle WHERE key = \(key)", logger: logger)
    }
}
