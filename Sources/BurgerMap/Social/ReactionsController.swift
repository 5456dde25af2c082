import BurgerMapCore
import Hummingbird

/// Likes and bookmarks: `PUT`/`DELETE /v1/reviews/{id}/like` and `…/bookmark` (mounted at
/// `/v1/reviews`), and the caller's lists `GET /v1/me/likes` and `/v1/me/bookmarks` (mounted at
/// `/v1/me` with `personalEndpoints`).
struct ReactionsController {
    let social: any SocialStore
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware
    /// How often a user may like or bookmark.
    let writes: WriteLimiter
    /// Blocks: no like or bookmark between users who block one another.
    let blocks: any BlockStore

    /// The toggles under `/v1/reviews/{id}`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let signedIn = routes.signedIn(authentication)
        for reaction in Reaction.allCases {
            signedIn.put(":id/\(reaction.rawValue)") { request, context in
                try await toggle(reaction, active: true, context: context)
            }
            signedIn.delete(":id/\(reaction.rawValue)") { request, context in
                try await toggle(reaction, active: false, context: context)
            }
        }
        return routes
    }

    /// `GET /v1/me/likes` and `/v1/me/bookmarks`.
    var personalEndpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let signedIn = routes.signedIn(authentication)
        signedIn.get("likes") { request, context in try await list(.like, request, context: context) }
        signedIn.get("bookmarks") { request, context in try await list(.bookmark, request, context: context) }
        return routes
    }

    /// `PUT` (active) or `DELETE` a like or bookmark: `200 {liked, like_count}` or
    /// `{bookmarked, bookmark_count}`, the same answer however often it is sent. A review that
    /// does not exist (or was deleted) is `404`.
    func toggle(_ reaction: Reaction, active: Bool, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.reviewNotFound)
        if active { try await blocks.requireNotBlocked(context.user.id, authorOf: id) }
        try await writes.admit(.reaction, user: context.user.id)
        guard
            let state = try await social.setReaction(
                reaction, active: active, review: id, user: context.user.id, at: .now())
        else { throw Problem.notFound(.reviewNotFound, id: id) }
        return ReactionStateView(reaction: reaction, state: state).response()
    }

    /// The caller's liked or bookmarked reviews, most recently liked/bookmarked first. The cursor
    /// is signed for this list and this caller.
    func list(_ reaction: Reaction, _ request: Request, context: AuthenticatedContext) async throws -> Response {
        let query = try ListQuery(request, cursors: cursors, scope: "me-\(reaction.rawValue)s|\(context.user.id)")
        let page = try await social.reactedReviews(
            reaction, user: context.user.id, after: query.after, limit: query.limit)
        return page.response(for: request, query: query, cursors: cursors)
    }
}

/// `{"liked": true, "like_count": 3}` or `{"bookmarked": …, "bookmark_count": …}`.
struct ReactionStateView: JSONWritable {
    var reaction: Reaction
    var state: ReactionState

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            switch reaction {
            case .like:
                writer.key("liked")
                writer.value(state.active)
                writer.key("like_count")
            case .bookmark:
                writer.key("bookmarked")
                writer.value(state.active)
                writer.key("bookmark_count")
            }
            writer.value(state.count)
        }
    }
}
