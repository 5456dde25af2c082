import BurgerMapCore
import Hummingbird

/// `GET /v1/feed`: the reviews of the people the caller follows and the caller's own.
struct FeedController {
    let feed: any FeedStore
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware

    /// The route, mounted at `/v1/feed`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.signedIn(authentication).get(use: feed)
        return routes
    }

    /// A page of Review, newest first. The cursor is signed for this caller's feed: another
    /// user's feed cursor is `400 invalid_cursor`.
    @Sendable func feed(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let query = try ListQuery(request, cursors: cursors, scope: "feed|\(context.user.id)")
        let page = try await feed.feed(of: context.user.id, after: query.after, limit: query.limit)
        return page.response(for: request, query: query, cursors: cursors)
    }
}
