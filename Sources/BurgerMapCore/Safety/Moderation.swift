/// A user's standing: whether they moderate, and whether they are suspended. Read with the user
/// for the requests that carry a token (`AccountStore.authenticatedUser`; the service keeps it
/// until the next write, at most 2 s).
public struct AccountStanding: Sendable, Equatable {
    public var isModerator: Bool
    /// When a moderator suspended the account; `nil` when it is not suspended.
    public var suspendedAt: Timestamp?

    public init(isModerator: Bool = false, suspendedAt: Timestamp? = nil) {
        self.isModerator = isModerator
        self.suspendedAt = suspendedAt
    }
}

/// One line of the moderation audit log: who did what to which object, and why.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    /// The moderator; `nil` for the operator's command line (`burgermap admin`).
    public var moderatorID: Int64?
    public var action: String
    public var targetType: String
    public var targetID: Int64
    public var reason: String?
    public var createdAt: Timestamp

    public init(
        id: Int64, moderatorID: Int64?, action: String, targetType: String, targetID: Int64, reason: String?,
        createdAt: Timestamp
    ) {
        self.id = id
        self.moderatorID = moderatorID
        self.action = action
        self.targetType = targetType
        self.targetID = targetID
        self.reason = reason
        self.createdAt = createdAt
    }

    /// The keyset position of this entry in the newest-first log.
    public var listKey: TimeKey { TimeKey(time: createdAt, id: id) }
}

/// What a moderation action did to an account.
public enum ModerationOutcome: Sendable, Equatable {
    case done
    case userMissing
}

/// Where moderator roles, suspensions and the audit log live. Every change writes its audit
/// entry in the same transaction.
public protocol ModerationStore: Sendable {
    /// Grants or revokes the moderator role of the account with this email (by
    /// `AccountRules.key`); `userMissing` when there is none.
    func setModerator(email: String, granted: Bool, at time: Timestamp) async throws -> ModerationOutcome
    /// Suspends (`true`) or reinstates an account, by `moderator`. A suspension also ends every
    /// login of the account (its refresh tokens stop working; its access tokens are refused by
    /// the standing read with the user, which every write makes the service read again) and closes the open reports on the user (`suspended`).
    func setSuspended(_ userID: Int64, _ suspended: Bool, by moderator: Int64, reason: String?, at time: Timestamp)
        async throws -> ModerationOutcome
    /// A page of the audit log, newest first (ties by id).
    func auditLog(after: TimeKey?, limit: Int) async throws -> KeysetPage<AuditEntry>
}
