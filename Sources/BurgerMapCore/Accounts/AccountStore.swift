/// Where accounts, their logins and refresh tokens live. The HTTP layer sees only this; each
/// storage engine implements it (SQLite in the data folder, or PostgreSQL).
///
/// Every write takes the time it happens at, so that tests can inject a clock.
public protocol AccountStore: Sendable {
    /// Which of `email` / `nickname` an existing account already uses (compared by
    /// `AccountRules.key`), if any.
    func accountExists(email: String?, nickname: String?) async throws -> AccountConflict?
    /// Creates an account; throws `AccountConflict` when a concurrent registration took the
    /// email or nickname first (the schema's unique keys decide).
    func createUser(email: String, passwordHash: String, nickname: String, at time: Timestamp) async throws -> User
    /// The account with this email (by `AccountRules.key`) and its password hash, or `nil`.
    func credentials(email: String) async throws -> (user: User, passwordHash: String)?
    /// Replaces a user's password hash if it is still `old` (a login upgrading an older form);
    /// `false` when it changed meanwhile or the account is gone.
    func replacePasswordHash(userID: Int64, from old: String, to new: String) async throws -> Bool
    /// One account, or `nil`.
    func user(id: Int64) async throws -> User?
    /// One account with its standing (moderator, suspended), read on every request that carries
    /// a token; `nil` when the account is gone.
    func authenticatedUser(id: Int64) async throws -> (user: User, standing: AccountStanding)?
    /// Whether an account exists (lists of a missing user's things are `404`, not empty).
    func userExists(id: Int64) async throws -> Bool
    /// Changes the nickname and/or bio (`nil` leaves a field; an empty bio clears it); `nil`
    /// when the account is gone; throws `AccountConflict.nickname` when the nickname is taken.
    func updateProfile(id: Int64, nickname: String?, bio: String?, at time: Timestamp) async throws -> User?
    /// A user's counts, and whether `viewer` follows them.
    func profileStats(of userID: Int64, viewer: Int64?) async throws -> ProfileStats
    /// Starts a login with its first refresh token (stored as a hash only).
    func startLogin(userID: Int64, tokenHash: [UInt8], expiresAt: Timestamp, at time: Timestamp) async throws
    /// Uses a refresh token once and stores its successor, in one transaction, so that two
    /// refreshes with the same token cannot both rotate it (see `RefreshOutcome`).
    func rotateRefreshToken(
        _ tokenHash: [UInt8], to newHash: [UInt8], expiresAt: Timestamp, grace: Duration, at time: Timestamp
    ) async throws -> RefreshOutcome
    /// The user of a refresh token that is still good (unused, unexpired, its login not
    /// ended), without using it: the LookForRealBurger app keeps the refresh token of its login
    /// and never stores another, so its refresh route leaves the token as it is.
    func refreshTokenUser(_ tokenHash: [UInt8], at time: Timestamp) async throws -> Int64?
    /// Ends the login a refresh token belongs to, if it is `userID`'s; answers whether it was.
    func endLogin(tokenHash: [UInt8], userID: Int64, at time: Timestamp) async throws -> Bool
    /// Deletes an account and everything of it in one transaction: its logins and tokens, its
    /// reviews with their photo rows (and what hangs on them), its comments, likes, bookmarks,
    /// follows both ways, pending photos, write counts; the counts on everything else follow, and
    /// the places it added stay, with no creator. Answers the ids of its photos, whose files the
    /// caller removes after the commit, or `nil` when the account is gone already.
    func deleteAccount(id: Int64) async throws -> [Int64]?
    /// Makes a new photo the user's avatar in one transaction: the photo row is written, then
    /// `beforeCommit` runs with its id (the caller gives the files their final names there; if
    /// it throws, nothing is stored). Answers the updated user and the replaced avatar's photo
    /// id (whose files the caller removes), or `nil` when the account is gone.
    func replaceAvatar(
        userID: Int64, photo: PhotoSize, at time: Timestamp, beforeCommit: @Sendable (Int64) throws -> Void
    ) async throws -> (user: User, replaced: Int64?)?
}

/// The pixel size of a processed photo, as its row keeps it.
public struct PhotoSize: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The random name its images were stored under in an object store before the row was
    /// written (`PhotoObjectKey.random()`); `nil` in the photo folder, where files take the id.
    public var objectKey: String?

    public init(width: Int, height: Int, objectKey: String? = nil) {
        self.width = width
        self.height = height
        self.objectKey = objectKey
    }
}

/// Which unique account field a write collided with.
public enum AccountConflict: Error, Equatable, Sendable {
    case email
    case nickname
}

/// What presenting a refresh token did.
public enum RefreshOutcome: Equatable, Sendable {
    /// The token was good: it is now used, and a new one of the same login replaces it.
    case rotated(userID: Int64)
    /// Unknown, expired, revoked, or its login is gone.
    case invalid
    /// Used moments ago (within the grace period) and its successor not used yet: a retry of a
    /// refresh whose answer was lost. Nothing changed; the caller answers the same successor.
    case retried(userID: Int64)
    /// Already used: someone holds a copy, so the whole login was revoked.
    case reused
}
