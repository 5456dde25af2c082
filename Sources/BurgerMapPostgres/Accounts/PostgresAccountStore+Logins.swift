import BurgerMapCore
import Foundation
import PostgresNIO

/// Logins and their refresh tokens, as on SQLite: tokens are stored as SHA-256 hashes only, and
/// each is used once.
extension PostgresAccountStore {
    /// Starts a login with its first refresh token.
    public func startLogin(userID: Int64, tokenHash: [UInt8], expiresAt: Timestamp, at time: Timestamp) async throws {
        try await pool.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                "INSERT INTO login_sessions (user_id, created_at) VALUES (\(userID), \(time.milliseconds)) RETURNING id",
                logger: logger)
            var session: Int64?
            for try await id in rows.decode(Int64.self) { session = id }
            guard let session else { throw StorageError.rowVanished("login_sessions") }
            try await insertRefreshToken(connection, session: session, hash: tokenHash, expiresAt: expiresAt, at: time)
        }
    }

    /// The user of a refresh token that is still good, without using it (see
    /// `AccountStore.refreshTokenUser`).
    public func refreshTokenUser(_ tokenHash: [UInt8], at time: Timestamp) async throws -> Int64? {
        let rows = try await pool.query(
            """
            SELECT s.user_id FROM refresh_tokens AS t JOIN login_sessions AS s ON s.id = t.session_id
            WHERE t.token_hash = \(Data(tokenHash)) AND t.used_at IS NULL AND t.expires_at > \(time.milliseconds)
                AND s.revoked_at IS NULL
            """, logger: logger)
        for try await user in rows.decode(Int64.self) { return user }
        return nil
    }

    /// Uses a refresh token once: a good one is marked used and replaced by `newHash` in the
    /// same login. A used one revokes its whole login, unless it was used less than `grace` ago
    /// and its successor is still unused (`.retried`, nothing changes).
    ///
    /// One transaction that locks the token and its login (`FOR UPDATE`) before deciding: a
    /// second refresh with the same token waits for the first to commit, then reads the token
    /// as used, exactly as SQLite's single writer would have it.
    public func rotateRefreshToken(
        _ tokenHash: [UInt8], to newHash: [UInt8], expiresAt: Timestamp, grace: Duration, at time: Timestamp
    ) async throws -> RefreshOutcome {
        try await pool.transaction(logger: logger) { connection -> RefreshOutcome in
            let rows = try await connection.query(
                """
                SELECT t.id, t.session_id, t.expires_at, t.used_at, s.user_id, s.revoked_at
                FROM refresh_tokens AS t JOIN login_sessions AS s ON s.id = t.session_id
                WHERE t.token_hash = \(Data(tokenHash))
                FOR UPDATE OF t, s
                """, logger: logger)
            var found: (token: Int64, session: Int64, expiresAt: Int64, usedAt: Int64?, user: Int64, revokedAt: Int64?)?
            for try await row in rows.decode((Int64, Int64, Int64, Int64?, Int64, Int64?).self) { found = row }
            guard let found else { return .invalid }
            if found.revokedAt != nil { return .invalid }
            if let usedAt = found.usedAt {
                let graceMilliseconds =
                    grace.components.seconds * 1000 + grace.components.attoseconds / 1_000_000_000_000_000
                if time.milliseconds - usedAt < graceMilliseconds,
                    try await isUnusedSuccessor(connection, hash: newHash, session: found.session, at: time)
                {
                    return .retried(userID: found.user)
                }
                try await revokeLogin(connection, session: found.session, at: time)
                return .reused
            }
            if found.expiresAt <= time.milliseconds { return .invalid }
            try await connection.query(
                "UPDATE refresh_tokens SET used_at = \(time.milliseconds) WHERE id = \(found.token)", logger: logger)
            try await insertRefreshToken(
                connection, session: found.session, hash: newHash, expiresAt: expiresAt, at: time)
            return .rotated(userID: found.user)
        }
    }

    /// Ends the login that a refresh token belongs to, if it is `userID`'s. Returns whether the
    /// token was one of theirs (ending an already ended login counts). One statement.
    public func endLogin(tokenHash: [UInt8], userID: Int64, at time: Timestamp) async throws -> Bool {
        let rows = try await pool.query(
            """
            UPDATE login_sessions SET revoked_at = coalesce(revoked_at, \(time.milliseconds))
            WHERE id = (
                SELECT s.id FROM refresh_tokens AS t JOIN login_sessions AS s ON s.id = t.session_id
                WHERE t.token_hash = \(Data(tokenHash)) AND s.user_id = \(userID))
            RETURNING id
            """, logger: logger)
        var ended = false
        for try await _ in rows { ended = true }
        return ended
    }

    /// Whether the token with this hash belongs to the login, is unused and unexpired.
    private func isUnusedSuccessor(_ connection: PostgresConnection, hash: [UInt8], session: Int64, at time: Timestamp)
        async throws -> Bool
    {
        let rows = try await connection.query(
            """
            SELECT 1 FROM refresh_tokens
            WHERE token_hash = \(Data(hash)) AND session_id = \(session) AND used_at IS NULL
                AND expires_at > \(time.milliseconds)
            """, logger: logger)
        var found = false
        for try await _ in rows { found = true }
        return found
    }

    private func insertRefreshToken(
        _ connection: PostgresConnection, session: Int64, hash: [UInt8], expiresAt: Timestamp, at time: Timestamp
    ) async throws {
        try await connection.query(
            """
            INSERT INTO refresh_tokens (session_id, token_hash, created_at, expires_at)
            VALUES (\(session), \(Data(hash)), \(time.milliseconds), \(expiresAt.milliseconds))
            """, logger: logger)
    }

    /// Ends a login: none of its refresh tokens works any more (the first revocation time stays).
    private func revokeLogin(_ connection: PostgresConnection, session: Int64, at time: Timestamp) async throws {
        try await connection.query(
            "UPDATE login_sessions SET revoked_at = coalesce(revoked_at, \(time.milliseconds)) WHERE id = \(session)",
            logger: logger)
    }
}
