import BurgerMapCore
import Hummingbird

/// The report routes: `POST /v1/reviews/{id}/report`, `/v1/comments/{id}/report` and
/// `/v1/users/{id}/report`, each with `{reason, text?}` → `202`.
struct ReportsController {
    let reports: any ReportStore
    let rules: ReportRules
    let authentication: AccessTokenMiddleware
    let writes: WriteLimiter

    /// The route under one path (`/v1/reviews`, `/v1/comments` or `/v1/users`) for one kind of target.
    func endpoints(_ target: @escaping @Sendable (Int64) -> ReportTarget, missing: MessageKey) -> RouteCollection<
        AppRequestContext
    > {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.signedIn(authentication).post(":id/report") { request, context in
            try await report(target(try context.parameters.resourceID(missing)), missing, request, context)
        }
        return routes
    }

    struct ReportBody: Decodable {
        var reason: String?
        var text: String?
    }

    /// Files a report: one open report per reporter and object, so repeating it answers the
    /// same report (`202` both times). Reporting yourself or your own content is `400`, a
    /// missing object `404`. Content with `ReportRules.hideThreshold` distinct reporters is
    /// hidden from everyone but its author until a moderator decides.
    func report(_ target: ReportTarget, _ missing: MessageKey, _ request: Request, _ context: AuthenticatedContext)
        async throws -> Response
    {
        let body = try await request.decodeJSON(as: ReportBody.self)
        var errors: [FieldError] = []
        var reason: ReportReason?
        if let text = body.reason {
            reason = ReportReason(rawValue: text)
            if reason == nil { errors.append(ReportReason.fieldError) }
        } else {
            errors.append(FieldError(field: "reason", code: "required", .fieldRequired))
        }
        let text = body.text.flatMap { $0.isEmpty ? nil : $0 }
        if let text { TextField.reportText.check(text, into: &errors) }
        guard let reason, errors.isEmpty else { throw Problem.validation(errors) }
        if target == .user(context.user.id) { throw Problem(.validationFailed, .cannotReportYourself) }
        try await writes.admit(.report, user: context.user.id)
        switch try await reports.fileReport(
            target, by: context.user.id, reason: reason, text: text, hideThreshold: rules.hideThreshold, at: .now())
        {
        case .targetMissing: throw Problem.notFound(missing, id: target.id)
        case .ownTarget: throw Problem(.validationFailed, .cannotReportYourself)
        case .filed(let report, _):
            return ReportView(report: report).response(status: .accepted)
        }
    }
}

extension ReportReason {
    /// The field error of an unknown reason, naming the known ones.
    static let fieldError = FieldError(
        field: "reason", code: "unsupported", .fieldWrongType,
        ["expected": allCases.map(\.rawValue).joined(separator: ", ")])
}

/// A report as its reporter and moderators read it.
struct ReportView: JSONWritable {
    var report: Report

    func write(to writer: inout JSONWriter) {
        writer.object { writer in writeMembers(to: &writer) }
    }

    func writeMembers(to writer: inout JSONWriter) {
        writer.key("id")
        writer.value(report.id)
        writer.key("target_type")
        writer.value(report.target.kind)
        writer.key("target_id")
        writer.value(report.target.id)
        writer.key("reason")
        writer.value(report.reason.rawValue)
        writer.key("text")
        writer.value(report.text)
        writer.key("status")
        writer.value(report.resolution?.rawValue ?? "open")
        writer.key("created_at")
        writer.value(report.createdAt)
    }
}

/// An open report in the moderators' queue.
struct QueuedReportView: JSONWritable {
    var queued: QueuedReport

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            ReportView(report: queued.report).writeMembers(to: &writer)
            writer.key("reporter")
            UserSummaryView(user: queued.reporter).write(to: &writer)
            writer.key("target")
            writer.object { writer in
                writer.key("author_id")
                writer.value(queued.targetAuthorID)
                writer.key("text")
                writer.value(queued.targetText)
                writer.key("hidden")
                if let hidden = queued.targetHidden { writer.value(hidden) } else { writer.value(nil as String?) }
                writer.key("open_reports")
                writer.value(queued.openReports)
            }
        }
    }
}
