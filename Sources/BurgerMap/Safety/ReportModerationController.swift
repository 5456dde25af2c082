import BurgerMapCore
import Hummingbird

/// The moderators' report queue and their decisions on content, under `/v1/moderation`.
struct ReportModerationController {
    let reports: any ReportStore
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let moderators = routes.signedIn(authentication).group(context: ModeratorContext.self)
        moderators.get("reports", use: queue)
        moderators.post("reports/:id/dismiss", use: dismiss)
        moderators.put("reviews/:id/hidden") { request, context in
            try await decide(.review(try context.parameters.resourceID(.reviewNotFound)), true, request, context)
        }
        moderators.delete("reviews/:id/hidden") { request, context in
            try await decide(.review(try context.parameters.resourceID(.reviewNotFound)), false, request, context)
        }
        moderators.put("comments/:id/hidden") { request, context in
            try await decide(.comment(try context.parameters.resourceID(.commentNotFound)), true, request, context)
        }
        moderators.delete("comments/:id/hidden") { request, context in
            try await decide(.comment(try context.parameters.resourceID(.commentNotFound)), false, request, context)
        }
        return routes
    }

    /// `GET /v1/moderation/reports`: the open reports, oldest first, keyset-paged, each with
    /// its reporter and what the target says now.
    @Sendable func queue(_ request: Request, context: ModeratorContext) async throws -> Response {
        let query = try ListQuery(request, cursors: cursors, scope: "moderation-reports")
        let page = try await reports.openReports(after: query.after, limit: query.limit)
        return Page(
            items: page.items.map(QueuedReportView.init(queued:)),
            nextCursor: page.next.map { cursors.encode($0, scope: query.scope) }
        ).response(for: request)
    }

    /// `PUT /v1/moderation/{reviews|comments}/{id}/hidden` with `{reason?}` hides the content
    /// from everyone but its author; `DELETE` (with `{reason?}` or no body) restores it. Either
    /// closes the object's open reports; both are idempotent and written to the audit log.
    func decide(_ content: HideableContent, _ hidden: Bool, _ request: Request, _ context: ModeratorContext)
        async throws -> Response
    {
        let reason = try await Self.reason(request)
        switch try await reports.setHidden(content, hidden, by: context.moderator.id, reason: reason, at: .now()) {
        case .contentMissing:
            throw Problem.notFound(
                content.target.kind == "review" ? .reviewNotFound : .commentNotFound, id: content.target.id)
        case .done(let closed):
            context.logger.notice(
                hidden ? "content hidden" : "content restored",
                metadata: [
                    "target": "\(content.target.kind) \(content.target.id)", "moderator": "\(context.moderator.id)",
                ])
            var writer = JSONWriter(capacity: 96)
            writer.object { writer in
                writer.key("target_type")
                writer.value(content.target.kind)
                writer.key("target_id")
                writer.value(content.target.id)
                writer.key("hidden")
                writer.value(hidden)
                writer.key("closed_reports")
                writer.value(closed)
            }
            return writer.response()
        }
    }

    /// `POST /v1/moderation/reports/{id}/dismiss` with `{reason?}`: closes one report as
    /// unfounded; the content stays as it is (restore it to show hidden content again).
    /// Dismissing a closed report answers it unchanged.
    @Sendable func dismiss(_ request: Request, context: ModeratorContext) async throws -> Response {
        let id = try context.parameters.resourceID(.reportNotFound)
        let reason = try await Self.reason(request)
        guard let report = try await reports.dismissReport(id: id, by: context.moderator.id, reason: reason, at: .now())
        else { throw Problem.notFound(.reportNotFound, id: id) }
        return ReportView(report: report).response()
    }

    /// The moderator's optional reason: from a JSON body when there is one.
    static func reason(_ request: Request) async throws -> String? {
        guard request.headers[.contentType] != nil || (request.headers[.contentLength].flatMap(Int.init) ?? 0) > 0
        else { return nil }
        return try ModerationController.checked(
            reason: try await request.decodeJSON(as: ModerationController.ReasonBody.self).reason)
    }
}
