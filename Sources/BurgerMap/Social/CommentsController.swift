import BurgerMapCore
import Hummingbird

/// Comments: `GET`/`POST /v1/reviews/{id}/comments` (`reviewEndpoints`, mounted at `/v1/reviews`)
/// and `PATCH`/`DELETE /v1/comments/{id}` (`endpoints`, mounted at `/v1/comments`).
struct CommentsController {
    let social: any SocialStore
    let reviews: any ReviewStore
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware
    /// Terms no comment may contain.
    var blockedWords = BlockedWords.none
    /// How often a user may comment.
    let writes: WriteLimiter
    /// Blocks: no comment between users who block one another; their comments hidden from each other.
    let blocks: any BlockStore

    /// The routes under `/v1/reviews/{id}`.
    var reviewEndpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.group().add(middleware: authentication).get(":id/comments", use: list)
        routes.signedIn(authentication)
            .post(":id/comments", use: create)
        return routes
    }

    /// The routes under `/v1/comments`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.group().add(middleware: authentication).get(":id", use: show)
        routes.signedIn(authentication)
            .patch(":id", use: update)
            .delete(":id", use: delete)
        return routes
    }

    struct TextBody: Decodable {
        var text: String?
    }

    /// The `text` of a comment body: required, 1…1000 characters, not only white space, no
    /// blocked term.
    static func text(of body: TextBody, blockedWords: BlockedWords) throws -> String {
        var validator = BodyValidator()
        let text = validator.required(body.text, "text")
        if let text {
            validator.check { TextField.commentText.check(text, into: &$0) }
            validator.check { blockedWords.check(text, field: "text", into: &$0) }
        }
        try validator.validate()
        return text ?? ""
    }

    /// `GET /v1/reviews/{id}/comments`: a page of Comment, oldest first; an unknown review, or one
    /// hidden from the caller, is `404`.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.resourceID(.reviewNotFound)
        let query = try ListQuery(request, cursors: cursors, scope: "comments|\(id)")
        let page = try await social.comments(
            review: id, after: query.after, limit: query.limit, viewer: context.identity?.id)
        try await page.requireOwner(missing: .notFound(.reviewNotFound, id: id)) {
            try await reviews.reviewVisible(id: id, viewer: context.identity?.id)
        }
        return page.response(for: request, query: query, cursors: cursors)
    }

    /// `POST /v1/reviews/{id}/comments` `{text}`: `201` Comment.
    @Sendable func create(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.reviewNotFound)
        let text = try Self.text(of: try await request.decodeJSON(as: TextBody.self), blockedWords: blockedWords)
        try await blocks.requireNotBlocked(context.user.id, authorOf: id)
        try await writes.admit(.comment, user: context.user.id)
        guard let comment = try await social.addComment(review: id, author: context.user.id, text: text, at: .now())
        else {
            throw Problem.notFound(.reviewNotFound, id: id)
        }
        return comment.response(status: .created, headers: [.location: "/v1/comments/\(comment.id)"])
    }

    /// `GET /v1/comments/{id}`: one Comment (where a new comment's `Location` points).
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.resourceID(.commentNotFound)
        guard let comment = try await social.comment(id: id, viewer: context.identity?.id) else {
            throw Problem.notFound(.commentNotFound, id: id)
        }
        return comment.response()
    }

    /// `PATCH /v1/comments/{id}` `{text}`: only the comment's author; anyone else is `403`.
    @Sendable func update(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.commentNotFound)
        let text = try Self.text(of: try await request.decodeJSON(as: TextBody.self), blockedWords: blockedWords)
        switch try await social.updateComment(id: id, by: context.user.id, text: text, at: .now()) {
        case .done(let comment): return comment.response()
        case .notFound: throw Problem.notFound(.commentNotFound, id: id)
        case .forbidden: throw Problem(.forbidden, .notCommentAuthor)
        }
    }

    /// `DELETE /v1/comments/{id}`: the comment's author or the review's author; `204`.
    @Sendable func delete(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.commentNotFound)
        switch try await social.deleteComment(id: id, by: context.user.id) {
        case .done: return Response(status: .noContent)
        case .notFound: throw Problem.notFound(.commentNotFound, id: id)
        case .forbidden: throw Problem(.forbidden, .notCommentOrReviewAuthor)
        }
    }
}
