import Hummingbird

/// Leaving: `DELETE /v1/users/me` deletes the caller's account and everything of it.
struct AccountClosureController {
    let accounts: any AccountStore
    let services: AccountServices
    let media: MediaServices
    let authentication: AccessTokenMiddleware

    /// The routes under `/v1/users`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.signedIn(authentication).delete("me", use: delete)
        return routes
    }

    struct DeleteBody: Decodable {
        var password: String?
    }

    /// `DELETE /v1/users/me` `{password}`: the account goes, with its logins (its access tokens
    /// stop working at once: each request looks its user up), reviews and their photos,
    /// comments, likes, bookmarks and follows, in one transaction; counts on everything else
    /// stay exact; places it added stay, with no creator; the email and nickname are free again.
    /// The password is checked as a login checks it, throttled alike (a wrong one is
    /// `401 invalid_credentials`). Photo files go after the commit; a crash in between leaves
    /// files that no row owns, which start-up removes.
    @Sendable func delete(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let body = try await request.decodeJSON(as: DeleteBody.self)
        let user = try await services.authenticate(
            email: context.user.email, password: body.password, store: accounts, client: context.clientKey,
            clientText: context.clientText, logger: context.logger)
        guard user.id == context.user.id, let photoIDs = try await accounts.deleteAccount(id: user.id) else {
            throw Problem(.unauthorized, .accessTokenInvalid)
        }
        media.storage.remove(photoIDs: photoIDs)
        context.logger.notice("account deleted", metadata: ["user_id": "\(user.id)", "photos": "\(photoIDs.count)"])
        return Response(status: .noContent)
    }
}
