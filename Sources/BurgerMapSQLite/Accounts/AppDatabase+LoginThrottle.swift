import BurgerMapCore
import GRDB

/// Login throttling's records in SQLite (`LoginThrottleStore`): the single writer makes every
/// read-modify-write atomic.
extension AppDatabase {
    static let throttleColumns = "failures, blocked_until, rounds, last_seen, forget_at"

    static func throttleState(_ row: Row) -> ThrottleKeyState {
        let failures: String = row["failures"]
        return ThrottleKeyState(
            failures: failures.split(separator: ",").compactMap { Int64($0).map(Timestamp.init(milliseconds:)) },
            blockedUntil: Timestamp(milliseconds: row["blocked_until"]), rounds: row["rounds"],
            lastSeen: Timestamp(milliseconds: row["last_seen"]), forgetAt: Timestamp(milliseconds: row["forget_at"]))
    }

    /// The records of these keys that exist.
    public func throttleStates(_ keys: [String]) async throws -> [String: ThrottleKeyState] {
        try await measured("throttle_states") {
            try await pool.read { db in
                var states: [String: ThrottleKeyState] = [:]
                for key in keys {
                    if let row = try Row.fetchOne(
                        db, sql: "SELECT \(Self.throttleColumns) FROM login_throttle WHERE key = ?", arguments: [key])
                    {
                        states[key] = Self.throttleState(row)
                    }
                }
                return states
            }
        }
    }

    /// Runs `change` on a key's record in one write transaction, then sweeps a few forgettable
    /// records (see `LoginThrottleStore.updateThrottleKey`).
    public func updateThrottleKey<Outcome: Sendable>(
        _ key: String, at time: Timestamp, _ change: @Sendable (inout ThrottleKeyState) -> Outcome
    ) async throws -> Outcome {
        try await measured("update_throttle_key") {
            try await pool.write { db in
                var state =
                    try Row.fetchOne(
                        db, sql: "SELECT \(Self.throttleColumns) FROM login_throttle WHERE key = ?", arguments: [key]
                    ).map(Self.throttleState) ?? ThrottleKeyState()
                let outcome = change(&state)
                try db.execute(
                    sql: """
                        INSERT INTO login_throttle (key, \(Self.throttleColumns)) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (key) DO UPDATE SET failures = excluded.failures,
                            blocked_until = excluded.blocked_until, rounds = excluded.rounds,
                            last_seen = excluded.last_seen, forget_at = excluded.forget_at
                        """,
                    arguments: [
                        key, state.failures.map { String($0.milliseconds) }.joined(separator: ","),
                        state.blockedUntil.milliseconds, state.rounds, state.lastSeen.milliseconds,
                        state.forgetAt.milliseconds,
                    ])
                try db.execute(
                    sql: """
                        DELETE FROM login_throttle WHERE key IN (
                            SELECT key FROM login_throttle WHERE forget_at <= ? LIMIT ?)
                        """, arguments: [time.milliseconds, ThrottleKeyState.sweepLimit])
                return outcome
            }
        }
    }

    /// Deletes a key's record, if it has one.
    public func removeThrottleKey(_ key: String) async throws {
        try await measured("remove_throttle_key") {
            try await pool.write { db in
                try db.execute(sql: "DELETE FROM login_throttle WHERE key = ?", arguments: [key])
            }
        }
    }
}
