import BurgerMapCore
import Foundation
import GRDB

extension AppDatabase {
    static let userColumns = "id, email, nickname, bio, avatar_photo_id, created_at"

    /// One account, read on a connection already held.
    static func user(_ db: Database, id: Int64) throws -> User? {
        try Row.fetchOne(db, sql: "SELECT \(userColumns) FROM users WHERE id = ?", arguments: [id]).map(user)
    }

    static func user(_ row: Row) -> User {
        User(
            id: row["id"], email: row["email"], nickname: row["nickname"], bio: row["bio"],
            avatarUrl: (row["avatar_photo_id"] as Int64?).map(PhotoURL.thumbnail),
            createdAt: Timestamp(milliseconds: row["created_at"]))
    }

    /// Creates an account; the unique keys decide races between two registrations.
    public func createUser(
        email: String, passwordHash: String, nickname: String, at time: Timestamp = .now()
    ) async throws -> User {
        try await measured("create_user") {
            try await pool.write { db in
                do {
                    try db.execute(
                        sql: """
                            INSERT INTO users (email, email_key, password_hash, nickname, nickname_key, created_at, updated_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            email, AccountRules.key(email), passwordHash, nickname, AccountRules.key(nickname),
                            time.milliseconds, time.milliseconds,
                        ])
                } catch let error as DatabaseError {
                    throw Self.accountConflict(error) ?? error
                }
                return User(
                    id: db.lastInsertedRowID, email: email, nickname: nickname, bio: nil, avatarUrl: nil,
                    createdAt: time)
            }
        }
    }

    /// Maps a unique-constraint failure on `users` to the field that collided.
    private static func accountConflict(_ error: DatabaseError) -> AccountConflict? {
        guard error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE else { return nil }
        let message = error.message ?? ""
        if message.contains("users.email_key") { return .email }
        if message.contains("users.nickname_key") { return .nickname }
        return nil
    }

    /// Whether an account uses this email or nickname (compared case-insensitively).
    public func accountExists(email: String? = nil, nickname: String? = nil) async throws -> AccountConflict? {
        try await pool.read { db in
            if let email,
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM users WHERE email_key = ?", arguments: [AccountRules.key(email)]) == true
            {
                return .email
            }
            if let nickname,
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM users WHERE nickname_key = ?", arguments: [AccountRules.key(nickname)])
                    == true
            {
                return .nickname
            }
            return nil
        }
    }

    /// The account with this email and its password hash, for a login.
    public func credentials(email: String) async throws -> (user: User, passwordHash: String)? {
        try await measured("credentials") {
            try await pool.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT \(Self.userColumns), password_hash FROM users WHERE email_key = ?",
                    arguments: [AccountRules.key(email)]
                ).map { (Self.user($0), $0["password_hash"]) }
            }
        }
    }

    public func replacePasswordHash(userID: Int64, from old: String, to new: String) async throws -> Bool {
        try await measured("replace_password_hash") {
            try await pool.write { db in
                try db.execute(
                    sql: "UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?",
                    arguments: [new, userID, old])
                return db.changesCount == 1
            }
        }
    }

    /// One account, or `nil`.
    public func user(id: Int64) async throws -> User? {
        try await measured("user") {
            try await pool.read { db in try Self.user(db, id: id) }
        }
    }

    /// Changes the nickname and/or bio (a `nil` leaves a field as it is; an empty bio clears it).
    public func updateProfile(id: Int64, nickname: String?, bio: String?, at time: Timestamp = .now()) async throws
        -> User?
    {
        try await measured("update_profile") {
            try await pool.write { db in
                var changed = false
                do {
                    if let nickname {
                        try db.execute(
                            sql: "UPDATE users SET nickname = ?, nickname_key = ?, updated_at = ? WHERE id = ?",
                            arguments: [nickname, AccountRules.key(nickname), time.milliseconds, id])
                        changed = changed || db.changesCount > 0
                    }
                    if let bio {
                        try db.execute(
                            sql: "UPDATE users SET bio = ?, updated_at = ? WHERE id = ?",
                            arguments: [bio.isEmpty ? nil : bio, time.milliseconds, id])
                        changed = changed || db.changesCount > 0
                    }
                } catch let error as DatabaseError {
                    throw Self.accountConflict(error) ?? error
                }
                if let event = AccountRules.profileChanged(id, changedAnything: changed) {
                    try self.recordEvent(event, at: time, in: db)
                }
                return try Self.user(db, id: id)
            }
        }
    }

    /// Starts a login with its first refresh token (stored as a hash only).
    public func startLogin(userID: Int64, tokenHash: [UInt8], expiresAt: Timestamp, at time: Timestamp = .now())
        async throws
    {
        try await measured("start_login") {
            try await pool.write { db in
                try db.execute(
                    sql: "INSERT INTO login_sessions (user_id, created_at) VALUES (?, ?)",
                    arguments: [userID, time.milliseconds])
                try Self.insertRefreshToken(
                    db, session: db.lastInsertedRowID, hash: tokenHash, expiresAt: expiresAt, at: time)
            }
        }
    }

    /// Uses a refresh token once: a good one is marked used and replaced by `newHash` in the
    /// same login. A used one revokes its whole login (someone else holds a copy), unless it was
    /// used less than `grace` ago and its successor (`newHash`, derived from the token, so the
    /// same on every retry) is still unused: then the answer is `.retried` and nothing changes.
    /// One write transaction, so two refreshes with the same token cannot both rotate it.
    public func rotateRefreshToken(
        _ tokenHash: [UInt8], to newHash: [UInt8], expiresAt: Timestamp, grace: Duration = .zero,
        at time: Timestamp = .now()
    ) async throws -> RefreshOutcome {
        try await measured("rotate_refresh_token") {
            try await pool.write { db in
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT t.id, t.session_id, t.expires_at, t.used_at, s.user_id, s.revoked_at
                            FROM refresh_tokens AS t JOIN login_sessions AS s ON s.id = t.session_id
                            WHERE t.token_hash = ?
                            """, arguments: [Data(tokenHash)])
                else { return .invalid }
                let sessionID: Int64 = row["session_id"]
                if (row["revoked_at"] as Int64?) != nil { return .invalid }
                if let usedAt = row["used_at"] as Int64? {
                    let graceMilliseconds =
                        grace.components.seconds * 1000 + grace.components.attoseconds / 1_000_000_000_000_000
                    if time.milliseconds - usedAt < graceMilliseconds,
                        try Self.isUnusedSuccessor(db, hash: newHash, session: sessionID, at: time)
                    {
                        return .retried(userID: row["user_id"])
                    }
                    try Self.revokeLogin(db, session: sessionID, at: time)
                    return .reused
                }
                if (row["expires_at"] as Int64) <= time.milliseconds { return .invalid }
                try db.execute(
                    sql: "UPDATE refresh_tokens SET used_at = ? WHERE id = ?",
                    arguments: [time.milliseconds, row["id"] as Int64])
                try Self.insertRefreshToken(db, session: sessionID, hash: newHash, expiresAt: expiresAt, at: time)
                return .rotated(userID: row["user_id"])
            }
        }
    }

    /// The user of a refresh token that is still good, without using it (see
    /// `AccountStore.refreshTokenUser`).
    public func refreshTokenUser(_ tokenHash: [UInt8], at time: Timestamp = .now()) async throws -> Int64? {
        try await pool.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT s.user_id FROM refresh_tokens AS t JOIN login_sessions AS s ON s.id = t.session_id
                    WHERE t.token_hash = ? AND t.used_at IS NULL AND t.expires_at > ? AND s.revoked_at IS NULL
                    """, arguments: [Data(tokenHash), time.milliseconds])
        }
    }

    /// Ends the login that a refresh token belongs to, if it is `userID`'s. Returns whether the
    /// token was one of theirs (ending an already ended login counts).
    public func endLogin(tokenHash: [UInt8], userID: Int64, at time: Timestamp = .now()) async throws -> Bool {
        try await measured("end_login") {
            try await pool.write { db in
                guard
                    let sessionID = try Int64.fetchOne(
                        db,
                        sql: """
                            SELECT s.id FROM refresh_tokens AS t JOIN login_sessions AS s ON s.id = t.session_id
                            WHERE t.token_hash = ? AND s.user_id = ?
                            """, arguments: [Data(tokenHash), userID])
                else { return false }
                try Self.revokeLogin(db, session: sessionID, at: time)
                return true
            }
        }
    }

    /// Whether the token with this hash belongs to the login, is unused and unexpired.
    private static func isUnusedSuccessor(_ db: Database, hash: [UInt8], session: Int64, at time: Timestamp) throws
        -> Bool
    {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT 1 FROM refresh_tokens
                WHERE token_hash = ? AND session_id = ? AND used_at IS NULL AND expires_at > ?
                """, arguments: [Data(hash), session, time.milliseconds]) == true
    }

    private static func insertRefreshToken(
        _ db: Database, session: Int64, hash: [UInt8], expiresAt: Timestamp, at time: Timestamp
    ) throws {
        try db.execute(
            sql: "INSERT INTO refresh_tokens (session_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?)",
            arguments: [session, Data(hash), time.milliseconds, expiresAt.milliseconds])
    }

    /// Ends a login: none of its refresh tokens works any more (the first revocation time stays).
    private static func revokeLogin(_ db: Database, session: Int64, at time: Timestamp) throws {
        try db.execute(
            sql: "UPDATE login_sessions SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?",
            arguments: [time.milliseconds, session])
    }
}
