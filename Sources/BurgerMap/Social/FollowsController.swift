import BurgerMapCore
import Hummingbird

/// Follows under `/v1/users/{id}`: `PUT`/`DELETE …/follow`, `GET …/followers`, `GET …/following`.
struct FollowsController {
    let social: any SocialStore
    let accounts: any AccountStore
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware
    /// How often a user may follow or unfollow.
    let writes: WriteLimiter
    /// Blocks: no follow between users who block one another.
    let blocks: any BlockStore

    /// The routes, mounted at `/v1/users`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let signedIn = routes.signedIn(authentication)
        signedIn.put(":id/follow") { request, context in try await toggle(active: true, context: context) }
        signedIn.delete(":id/follow") { request, context in try await toggle(active: false, context: context) }
        routes.get(":id/followers") { request, context in try await list(.followers, request, context: context) }
        routes.get(":id/following") { request, context in try await list(.following, request, context: context) }
        return routes
    }

    /// `PUT` (active) or `DELETE` a follow: `200 {following, follower_count}` (the followed user's
    /// count), idempotent. Following yourself is `400`, an unknown user `404`; unfollowing
    /// yourself answers the state there is (`following: false`), like any `DELETE` of a follow
    /// that is not there.
    func toggle(active: Bool, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.userNotFound)
        if active, id == context.user.id { throw Problem(.validationFailed, .cannotFollowYourself) }
        if active { try await blocks.requireNotBlocked(context.user.id, id) }
        try await writes.admit(.follow, user: context.user.id)
        guard let state = try await social.setFollow(active, follower: context.user.id, followee: id, at: .now()) else {
            throw Problem.notFound(.userNotFound, id: id)
        }
        return FollowStateView(state: state).response()
    }

    /// A page of UserSummary, newest follow first; a user who does not exist is `404`.
    func list(_ list: FollowList, _ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.resourceID(.userNotFound)
        let query = try ListQuery(request, cursors: cursors, scope: "\(list.cursorName)|\(id)")
        let page = try await social.follows(list, of: id, after: query.after, limit: query.limit)
        try await page.requireOwner(missing: .notFound(.userNotFound, id: id)) { try await accounts.userExists(id: id) }
        return KeysetPage(items: page.items.map(UserSummaryView.init), next: page.next)
            .response(for: request, query: query, cursors: cursors)
    }
}

/// `{"following": true, "follower_count": 12}`.
struct FollowStateView: JSONWritable {
    var state: FollowState

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("following")
            writer.value(state.following)
            writer.key("follower_count")
            writer.value(state.followerCount)
        }
    }
}
