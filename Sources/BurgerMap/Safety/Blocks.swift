import BurgerMapCore
import Hummingbird

/// The block routes: `PUT`/`DELETE /v1/users/{id}/block` and `GET /v1/me/blocks`.
struct BlocksController {
    let blocks: any BlockStore
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware

    /// `/v1/users/{id}/block`.
    var userEndpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let signedIn = routes.signedIn(authentication)
        signedIn.put(":id/block") { _, context in try await set(true, context) }
        signedIn.delete(":id/block") { _, context in try await set(false, context) }
        return routes
    }

    /// `/v1/me/blocks`.
    var personalEndpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.signedIn(authentication).get("blocks") { request, context in
            let query = try ListQuery(request, cursors: cursors, scope: "me-blocks|\(context.user.id)")
            let page = try await blocks.blocks(of: context.user.id, after: query.after, limit: query.limit)
            return Page(
                items: page.items.map(UserSummaryView.init(user:)),
                nextCursor: page.next.map { cursors.encode($0, scope: query.scope) }
            ).response(for: request)
        }
        return routes
    }

    /// Blocks or unblocks a user: `{blocked}`; blocking yourself is `400` (unblocking yourself
    /// changes nothing, as you never block yourself), a missing user `404`.
    func set(_ active: Bool, _ context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.userNotFound)
        if active, id == context.user.id { throw Problem(.validationFailed, .cannotBlockYourself) }
        guard let state = try await blocks.setBlock(active, blocker: context.user.id, blocked: id, at: .now()) else {
            throw Problem.notFound(.userNotFound, id: id)
        }
        var writer = JSONWriter(capacity: 32)
        writer.object { writer in
            writer.key("blocked")
            writer.value(state)
        }
        return writer.response()
    }
}

extension BlockStore {
    /// Throws `403 forbidden` when `user` and a review's author block one another.
    func requireNotBlocked(_ user: Int64, authorOf reviewID: Int64) async throws {
        if try await isBlocked(user, authorOf: reviewID) { throw Problem(.forbidden, .blockedUser) }
    }

    /// Throws `403 forbidden` when the two users block one another.
    func requireNotBlocked(_ user: Int64, _ other: Int64) async throws {
        if try await isBlocked(user, other) { throw Problem(.forbidden, .blockedUser) }
    }
}
