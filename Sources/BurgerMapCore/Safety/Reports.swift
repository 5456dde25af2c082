/// Why a user reports something (`reason` of `POST /v1/…/{id}/report`).
public enum ReportReason: String, Sendable, CaseIterable {
    case spam, harassment, hate, sexual, violence, misinformation, other
}

/// What a report is about. Reviews and comments can be hidden; users are suspended instead.
public enum ReportTarget: Sendable, Hashable {
    case review(Int64)
    case comment(Int64)
    case user(Int64)

    /// The target's kind as the API and the audit log name it.
    public var kind: String {
        switch self {
        case .review: "review"
        case .comment: "comment"
        case .user: "user"
        }
    }

    public var id: Int64 {
        switch self {
        case .review(let id), .comment(let id), .user(let id): id
        }
    }

    /// The target from its kind and id, or `nil` for an unknown kind.
    public init?(kind: String, id: Int64) {
        switch kind {
        case "review": self = .review(id)
        case "comment": self = .comment(id)
        case "user": self = .user(id)
        default: return nil
        }
    }
}

/// Content a moderator can hide: a review or a comment.
public enum HideableContent: Sendable, Hashable {
    case review(Int64)
    case comment(Int64)

    public var target: ReportTarget {
        switch self {
        case .review(let id): .review(id)
        case .comment(let id): .comment(id)
        }
    }
}

/// How a report was closed.
public enum ReportResolution: String, Sendable {
    /// A moderator hid the content.
    case hidden
    /// A moderator restored the content (or left it up).
    case restored
    /// A moderator found nothing wrong with this report.
    case dismissed
    /// A moderator suspended the reported user.
    case suspended
}

/// One report: who reported what, why, and whether a moderator has closed it.
public struct Report: Sendable, Equatable {
    public var id: Int64
    public var reporterID: Int64
    public var target: ReportTarget
    public var reason: ReportReason
    public var text: String?
    public var createdAt: Timestamp
    /// `nil` while the report is open.
    public var resolution: ReportResolution?

    public init(
        id: Int64, reporterID: Int64, target: ReportTarget, reason: ReportReason, text: String?,
        createdAt: Timestamp, resolution: ReportResolution?
    ) {
        self.id = id
        self.reporterID = reporterID
        self.target = target
        self.reason = reason
        self.text = text
        self.createdAt = createdAt
        self.resolution = resolution
    }

    /// The keyset position of this report in the oldest-first queue.
    public var listKey: TimeKey { TimeKey(time: createdAt, id: id) }
}

/// An open report as moderators read it in their queue: with the reporter and what the target
/// says now, so that a decision needs no second request.
public struct QueuedReport: Sendable, Equatable {
    public var report: Report
    public var reporter: User
    /// The author of the review or comment, or the reported user.
    public var targetAuthorID: Int64
    /// The review's or comment's text, or the reported user's nickname.
    public var targetText: String
    /// Whether the review or comment is hidden now; `nil` for users.
    public var targetHidden: Bool?
    /// How many open reports the target has (one per reporter).
    public var openReports: Int

    public init(
        report: Report, reporter: User, targetAuthorID: Int64, targetText: String, targetHidden: Bool?,
        openReports: Int
    ) {
        self.report = report
        self.reporter = reporter
        self.targetAuthorID = targetAuthorID
        self.targetText = targetText
        self.targetHidden = targetHidden
        self.openReports = openReports
    }
}

/// What filing a report did.
public enum ReportFiling: Sendable, Equatable {
    /// The reporter's open report on the target: new, or the one they filed before (repeating is
    /// idempotent and keeps the first reason). `hidden` says whether the target is hidden now.
    case filed(Report, hidden: Bool)
    case targetMissing
    /// The target is the reporter or the reporter's own review or comment.
    case ownTarget
}

/// What a moderator's decision on one object did.
public enum ContentDecision: Sendable, Equatable {
    /// Done; the number of open reports it closed.
    case done(closedReports: Int)
    case contentMissing
}

/// Where reports, hidden content and moderators' decisions on them live. Every decision writes
/// its audit entry (`moderation_log`) in its own transaction.
public protocol ReportStore: Sendable {
    /// Files `reporter`'s report on `target`, once per open report (see `ReportFiling`). When the
    /// target is a review or comment and its distinct open reporters reach `hideThreshold`
    /// (0: never), it is hidden in the same transaction, with an audit entry without a moderator.
    func fileReport(
        _ target: ReportTarget, by reporter: Int64, reason: ReportReason, text: String?, hideThreshold: Int,
        at time: Timestamp
    ) async throws -> ReportFiling
    /// A page of the open reports, oldest first (ties by id).
    func openReports(after: TimeKey?, limit: Int) async throws -> KeysetPage<QueuedReport>
    /// Hides (`true`) or restores a review or comment, by `moderator`, closing its open reports
    /// (`hidden` or `restored`). Idempotent.
    func setHidden(
        _ content: HideableContent, _ hidden: Bool, by moderator: Int64, reason: String?, at time: Timestamp
    ) async throws -> ContentDecision
    /// Closes one open report as `dismissed` (the content stays as it is); a closed report
    /// answers as it is. `nil` when there is no such report.
    func dismissReport(id: Int64, by moderator: Int64, reason: String?, at time: Timestamp) async throws -> Report?
}

/// How many distinct users' open reports hide a review or comment until a moderator decides
/// (`burgermap serve --report-threshold N`; 0 never hides on reports alone).
public struct ReportRules: Sendable, Equatable {
    public var hideThreshold = 3

    public init(hideThreshold: Int = 3) {
        self.hideThreshold = hideThreshold
    }
}
