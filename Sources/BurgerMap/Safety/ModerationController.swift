import BurgerMapCore
import Foundation
import Hummingbird

/// The context of moderator routes: it cannot be made for a user who is not a moderator
/// (`403 forbidden` before the handler runs), as `AuthenticatedContext` cannot without a user.
public struct ModeratorContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in moderator.
    public let moderator: User

    public init(context: AuthenticatedContext) throws {
        guard context.isModerator else { throw Problem(.forbidden, .moderatorRequired) }
        coreContext = context.coreContext
        moderator = context.user
    }

    public var responseEncoder: JSONEncoder { JSONCoding.encoder }
    public var requestDecoder: JSONDecoder { JSONCoding.decoder }
}

/// The moderator routes under `/v1/moderation`: suspend or reinstate an account, read the
/// audit log. Moderators are made with `burgermap admin grant-moderator EMAIL`.
struct ModerationController {
    let moderation: any ModerationStore
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let moderators = routes.signedIn(authentication).group(context: ModeratorContext.self)
        moderators.put("users/:id/suspension") { request, context in try await suspend(true, request, context) }
        moderators.delete("users/:id/suspension") { request, context in try await suspend(false, request, context) }
        moderators.get("audit", use: audit)
        return routes
    }

    struct ReasonBody: Decodable {
        var reason: String?
    }

    /// A moderator's reason, checked by the one rule of every moderator route.
    static func checked(reason: String?) throws -> String? {
        var errors: [FieldError] = []
        if let reason { TextField.moderationReason.check(reason, into: &errors) }
        if !errors.isEmpty { throw Problem.validation(errors) }
        return reason
    }

    /// `PUT /v1/moderation/users/{id}/suspension` with `{reason?}` (`{}` gives none), and
    /// `DELETE` of it (no body): a suspended account
    /// cannot log in, refresh or write, its logins end and its access tokens are refused at
    /// once; reinstating lets it log in again. Idempotent; each call is written to the audit log.
    func suspend(_ suspended: Bool, _ request: Request, _ context: ModeratorContext) async throws -> Response {
        let id = try context.parameters.resourceID(.userNotFound)
        var reason: String?
        if suspended {
            reason = try Self.checked(reason: try await request.decodeJSON(as: ReasonBody.self).reason)
        }
        if suspended, id == context.moderator.id { throw Problem(.validationFailed, .cannotSuspendYourself) }
        switch try await moderation.setSuspended(
            id, suspended, by: context.moderator.id, reason: reason, at: .now())
        {
        case .userMissing: throw Problem.notFound(.userNotFound, id: id)
        case .done:
            context.logger.notice(
                suspended ? "account suspended" : "account reinstated",
                metadata: ["user_id": "\(id)", "moderator": "\(context.moderator.id)"])
            var writer = JSONWriter(capacity: 64)
            writer.object { writer in
                writer.key("user_id")
                writer.value(id)
                writer.key("suspended")
                writer.value(suspended)
            }
            return writer.response()
        }
    }

    /// `GET /v1/moderation/audit`: every moderation action, newest first, keyset-paged.
    @Sendable func audit(_ request: Request, context: ModeratorContext) async throws -> Response {
        let query = try ListQuery(request, cursors: cursors, scope: "moderation-audit")
        let page = try await moderation.auditLog(after: query.after, limit: query.limit)
        return Page(items: page.items, nextCursor: page.next.map { cursors.encode($0, scope: query.scope) })
            .response(for: request)
    }
}

extension AuditEntry: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("id")
            writer.value(id)
            writer.key("moderator_id")
            // null: the operator
            if let moderatorID { writer.value(moderatorID) } else { writer.value(nil as String?) }
            writer.key("action")
            writer.value(action)
            writer.key("target_type")
            writer.value(targetType)
            writer.key("target_id")
            writer.value(targetID)
            writer.key("reason")
            writer.value(reason)
            writer.key("created_at")
            writer.value(createdAt)
        }
    }
}
