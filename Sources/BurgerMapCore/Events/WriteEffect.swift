/// One change a write makes besides its own row, decided by the core's rules (`SocialRules`,
/// `BlockRules`, `ModerationRules`, `ReviewRules`, `AccountRules`) from what the engine's
/// statements reported, and carried out by each engine with its own SQL in one exhaustive
/// `switch` (SQLite's `AppDatabase.apply`, PostgreSQL's `PostgresEffects.apply`): a new kind of
/// effect fails to compile until both engines carry it out.
///
/// The rules are plain functions of plain values, with no database: the decisions (which events
/// a write records, in which order, what else it changes, what it writes to the audit log) are
/// written once and tested once (`WriteRulesTests`), and the engines keep only their statements,
/// their locks and their round trips.
public enum WriteEffect: Sendable, Equatable {
    /// Record this event in the write's transaction.
    case record(DomainEvent)
    /// Write this line to the moderation audit log.
    case audit(AuditRecord)
    /// End every open login of the user (their refresh tokens stop working).
    case revokeLogins(user: Int64)
    /// Close the user's open reports with this resolution, by the moderator.
    case closeReports(onUser: Int64, ReportResolution, by: Int64)
}

/// A line the moderation audit log is to get (`AuditEntry` is such a line as it is read back).
public struct AuditRecord: Sendable, Equatable {
    /// The moderator; `nil` for reports alone (`autoHide`) and for the operator's command line.
    public var moderator: Int64?
    public var action: AuditAction
    /// `review`, `comment`, `user` or `report`.
    public var targetType: String
    public var targetID: Int64
    public var reason: String?

    public init(moderator: Int64?, _ action: AuditAction, targetType: String, targetID: Int64, reason: String?) {
        self.moderator = moderator
        self.action = action
        self.targetType = targetType
        self.targetID = targetID
        self.reason = reason
    }
}

/// What the audit log says was done: the one vocabulary of `moderation_log.action`.
public enum AuditAction: String, Sendable, CaseIterable {
    case grantModerator = "grant_moderator"
    case revokeModerator = "revoke_moderator"
    case suspend, unsuspend, hide, restore
    case autoHide = "auto_hide"
    case dismissReport = "dismiss_report"
}

extension Array where Element == WriteEffect {
    /// The events among the effects, in order.
    public var events: [DomainEvent] {
        compactMap {
            if case .record(let event) = $0 { return event }
            return nil
        }
    }
}
