/// What reports and moderators' decisions change besides their own rows, one rule both engines
/// obey: the events (in their order), the audit log's line, and what a suspension ends.
public enum ModerationRules {
    /// Whether a new report's target may be hidden by reports at all: a review or comment (not a
    /// user) that is not hidden yet, with hiding by reports turned on (`threshold` > 0).
    public static func countsReports(_ target: ReportTarget, alreadyHidden: Bool, threshold: Int) -> Bool {
        target.kind != "user" && !alreadyHidden && threshold > 0
    }

    /// What hiding by reports does once `openReports` distinct users' reports are open on the
    /// target; `nil` while they are fewer than `threshold`. The audit line names the count; the
    /// event has no actor (reports alone hid it).
    public static func autoHide(
        _ target: ReportTarget, openReports: Int, threshold: Int, owner: Int64, parent: Int64?
    ) -> [WriteEffect]? {
        guard openReports >= threshold else { return nil }
        return [
            .audit(
                AuditRecord(
                    moderator: nil, .autoHide, targetType: target.kind, targetID: target.id,
                    reason: "\(openReports) reports")),
            .record(DomainEvent.visibility(of: target, hidden: true, actor: nil, owner: owner, parent: parent)),
        ]
    }

    /// What a moderator's hide or restore does, given the state before and the open reports it
    /// closed (`closed`: report and reporter): the visibility event when the state changed, one
    /// `report.decided` per closed report in report-id order (so that both engines tell the
    /// reporters in one order, whatever order their statements returned), and the audit line,
    /// which is written even when nothing changed.
    public static func moderatorDecision(
        _ content: HideableContent, hidden: Bool, wasHidden: Bool, by moderator: Int64, reason: String?,
        owner: Int64, parent: Int64?, closed: [(report: Int64, reporter: Int64)]
    ) -> [WriteEffect] {
        var effects: [WriteEffect] = []
        if wasHidden != hidden {
            effects.append(
                .record(
                    DomainEvent.visibility(
                        of: content.target, hidden: hidden, actor: moderator, owner: owner, parent: parent)))
        }
        let resolution: ReportResolution = hidden ? .hidden : .restored
        for report in closed.sorted(by: { $0.report < $1.report }) {
            effects.append(
                .record(
                    DomainEvent.decision(report: report.report, resolution, by: moderator, reporter: report.reporter))
            )
        }
        effects.append(
            .audit(
                AuditRecord(
                    moderator: moderator, hidden ? .hide : .restore, targetType: content.target.kind,
                    targetID: content.target.id, reason: reason)))
        return effects
    }

    /// What dismissing an open report does: its audit line and its `report.decided`.
    public static func dismissal(of report: Report, by moderator: Int64, reason: String?) -> [WriteEffect] {
        [
            .audit(
                AuditRecord(
                    moderator: moderator, .dismissReport, targetType: "report", targetID: report.id, reason: reason)),
            .record(DomainEvent.decision(report: report.id, .dismissed, by: moderator, reporter: report.reporterID)),
        ]
    }

    /// What suspending or reinstating an account does besides its `suspended_at`: the event when
    /// the state changed; on a suspension, every login ended and the open reports on the user
    /// closed as `suspended`; the audit line, always.
    public static func suspension(
        of user: Int64, suspended: Bool, wasSuspended: Bool, by moderator: Int64, reason: String?
    ) -> [WriteEffect] {
        var effects: [WriteEffect] = []
        if wasSuspended != suspended {
            effects.append(
                .record(
                    DomainEvent(suspended ? .accountSuspended : .accountReinstated, actor: moderator, subject: user)))
        }
        if suspended {
            effects += [.revokeLogins(user: user), .closeReports(onUser: user, .suspended, by: moderator)]
        }
        effects.append(
            .audit(
                AuditRecord(
                    moderator: moderator, suspended ? .suspend : .unsuspend, targetType: "user", targetID: user,
                    reason: reason)))
        return effects
    }

    /// What granting or revoking the moderator role does: its audit line (by the operator's
    /// command line, so no moderator), and no event.
    public static func moderatorRole(of user: Int64, granted: Bool) -> [WriteEffect] {
        [
            .audit(
                AuditRecord(
                    moderator: nil, granted ? .grantModerator : .revokeModerator, targetType: "user", targetID: user,
                    reason: nil))
        ]
    }
}
