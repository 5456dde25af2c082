import BurgerMapCore
import Foundation
import Logging
import PostgresNIO

/// Accounts, their logins and refresh tokens in PostgreSQL, with the same answers as the SQLite
/// engine (`AppDatabase`). Emails and nicknames are compared by `AccountRules.key`, computed
/// here and stored beside them, so that both engines fold case alike; the schema's unique keys
/// decide races between registrations. Logins and refresh tokens are in
/// PostgresAccountStore+Logins.swift.
public struct PostgresAccountStore: AccountStore {
    let pool: PostgresPool
    let logger: Logger
    /// Records the events of this store's writes, in their transactions.
    let events: PostgresEventStore

    /// The `users` columns that make a `User`, in the order `user(_:)` reads them.
    static let userColumns = "id, email, nickname, bio, avatar_photo_id, created_at"

    /// The `User` of a row that selects `userColumns` from column `first` on.
    static func user(_ row: PostgresRandomAccessRow, from first: Int = 0) throws -> User {
        func value<T: PostgresDecodable>(_ column: Int, _ type: T.Type = T.self) throws -> T {
            try row[first + column].decode(T.self)
        }
        return User(
            id: try value(0), email: try value(1), nickname: try value(2), bio: try value(3),
            avatarUrl: try value(4, Int64?.self).map(PhotoURL.thumbnail),
            createdAt: Timestamp(milliseconds: try value(5)))
    }

    /// Every user a query that selects `userColumns` returns, in its order.
    static func users(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> [User] {
        var users: [User] = []
        for try await row in rows {
            users.append(try user(row.makeRandomAccess()))
        }
        return users
    }

    /// The field a write collided with, when it failed on one of the `users` unique keys
    /// (PostgreSQL names a column's UNIQUE constraint `<table>_<column>_key`).
    static func accountConflict(_ error: any Error) -> AccountConflict? {
        switch uniqueViolation(error) {
        case "users_email_key_key": .email
        case "users_nickname_key_key": .nickname
        default: nil
        }
    }

    /// Whether an account uses this email or nickname (compared by `AccountRules.key`).
    public func accountExists(email: String?, nickname: String?) async throws -> AccountConflict? {
        if let email,
            try await exists(
                pool.query("SELECT 1 FROM users WHERE email_key = \(AccountRules.key(email))", logger: logger))
        {
            return .email
        }
        if let nickname,
            try await exists(
                pool.query(
                    "SELECT 1 FROM users WHERE nickname_key = \(AccountRules.key(nickname))", logger: logger))
        {
            return .nickname
        }
        return nil
    }

    /// Whether a query returned a row.
    private func exists(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> Bool {
        for try await _ in rows { return true }
        return false
    }

    /// Creates an account; the unique keys decide races between two registrations.
    public func createUser(email: String, passwordHash: String, nickname: String, at time: Timestamp) async throws
        -> User
    {
        do {
            let rows = try await pool.query(
                """
                INSERT INTO users (email, email_key, password_hash, nickname, nickname_key, created_at, updated_at)
                VALUES (\(email), \(AccountRules.key(email)), \(passwordHash), \(nickname),
                    \(AccountRules.key(nickname)), \(time.milliseconds), \(time.milliseconds))
                RETURNING id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) {
                return User(id: id, email: email, nickname: nickname, bio: nil, avatarUrl: nil, createdAt: time)
            }
        } catch {
            throw Self.accountConflict(error) ?? error
        }
        throw StorageError.rowVanished("user")
    }

    /// The account with this email and its password hash, for a login.
    public func credentials(email: String) async throws -> (user: User, passwordHash: String)? {
        let rows = try await pool.query(
            """
            SELECT \(unescaped: Self.userColumns), password_hash FROM users
            WHERE email_key = \(AccountRules.key(email))
            """, logger: logger)
        for try await row in rows {
            let row = row.makeRandomAccess()
            return (try Self.user(row), try row[6].decode(String.self))
        }
        return nil
    }

    public func replacePasswordHash(userID: Int64, from old: String, to new: String) async throws -> Bool {
        let rows = try await pool.query(
            "UPDATE users SET password_hash = \(new) WHERE id = \(userID) AND password_hash = \(old) RETURNING id",
            logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// One account, or `nil`.
    public func user(id: Int64) async throws -> User? {
        try await Self.users(
            pool.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(id)", logger: logger)
        ).first
    }

    /// Whether an account exists (lists of a missing user's things are `404`, not empty).
    public func userExists(id: Int64) async throws -> Bool {
        try await exists(pool.query("SELECT 1 FROM users WHERE id = \(id)", logger: logger))
    }

    /// Changes the nickname and/or bio (a `nil` leaves a field as it is; an empty bio clears it),
    /// in one transaction: a taken nickname changes nothing.
    public func updateProfile(id: Int64, nickname: String?, bio: String?, at time: Timestamp) async throws -> User? {
        try await events.transaction(logger: logger) { connection in
            do {
                if let nickname {
                    try await connection.query(
                        """
                        UPDATE users SET nickname = \(nickname), nickname_key = \(AccountRules.key(nickname)),
                            updated_at = \(time.milliseconds)
                        WHERE id = \(id)
                        """, logger: logger)
                }
                if let bio {
                    try await connection.query(
                        """
                        UPDATE users SET bio = \(bio.isEmpty ? nil : bio), updated_at = \(time.milliseconds)
                        WHERE id = \(id)
                        """, logger: logger)
                }
            } catch {
                throw Self.accountConflict(error) ?? error
            }
            let user = try await Self.users(
                connection.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(id)", logger: logger)
            ).first
            if user != nil, let event = AccountRules.profileChanged(id, changedAnything: nickname != nil || bio != nil)
            {
                try await PostgresEventStore.record(event, at: time, on: connection, logger: logger)
            }
            return user
        }
    }

    /// A user's counts, and whether `viewer` follows them (all zero for a missing user).
    public func profileStats(of userID: Int64, viewer: Int64?) async throws -> ProfileStats {
        let rows = try await pool.query(
            """
            SELECT (SELECT count(*) FROM reviews WHERE author_id = \(userID)), follower_count, following_count,
                EXISTS (SELECT 1 FROM follows WHERE follower_id = \(viewer) AND followee_id = \(userID))
            FROM users WHERE id = \(userID)
            """, logger: logger)
        for try await (reviews, followers, following, isFollowing) in rows.decode((Int64, Int64, Int64, Bool).self) {
            return ProfileStats(
                reviewCount: Int(reviews), followerCount: Int(followers), followingCount: Int(following),
                isFollowing: isFollowing)
        }
        return ProfileStats()
    }

    /// Makes a new photo the user's avatar (see `AccountStore.replaceAvatar`). The user's row is
    /// locked first, so that two replacements one after the other each remove the previous one.
    public func replaceAvatar(
        userID: Int64, photo: PhotoSize, at time: Timestamp, beforeCommit: @Sendable (Int64) throws -> Void
    ) async throws -> (user: User, replaced: Int64?)? {
        try await events.transaction(logger: logger) { connection -> (user: User, replaced: Int64?)? in
            let previous = try await connection.query(
                "SELECT avatar_photo_id FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
            var found: Int64?? = nil
            for try await avatar in previous.decode(Int64?.self) { found = .some(avatar) }
            guard let replaced = found else { return nil }
            let inserted = try await connection.query(
                """
                INSERT INTO photos (owner_id, review_id, position, width, height, created_at, object_key)
                VALUES (\(userID), NULL, 0, \(Int32(photo.width)), \(Int32(photo.height)), \(time.milliseconds),
                    \(photo.objectKey))
                RETURNING id
                """, logger: logger)
            var photoID: Int64?
            for try await id in inserted.decode(Int64.self) { photoID = id }
            guard let photoID else { throw StorageError.rowVanished("photo") }
            try await PostgresEventStore.record(
                AccountRules.avatarChanged(userID), at: time, on: connection, logger: logger)
            try beforeCommit(photoID)
            try await connection.query(
                """
                UPDATE users SET avatar_photo_id = \(photoID), updated_at = \(time.milliseconds)
                WHERE id = \(userID)
                """, logger: logger)
            if let replaced {
                try await connection.query("DELETE FROM photos WHERE id = \(replaced)", logger: logger)
            }
            guard
                let user = try await Self.users(
                    connection.query(
                        "SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(userID)", logger: logger)
                ).first
            else { throw StorageError.rowVanished("user") }
            return (user, replaced)
        }
    }
}
