import BurgerMapCore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// A user's own data: `GET /v1/users/me/export` hands out a copy of it, `DELETE /v1/users/me`
/// erases it with the account.
struct AccountDataController {
    let accounts: any AccountStore
    let reviews: any ReviewStore
    let social: any SocialStore
    let blocks: any BlockStore
    let notifications: any NotificationStore
    let services: AccountServices
    let media: MediaServices
    let authentication: AccessTokenMiddleware

    /// The routes under `/v1/users`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.signedIn(authentication)
            .delete("me", use: delete)
            .get("me/export", use: export)
        return routes
    }

    /// `GET /v1/users/me/export`: a ZIP of `burgermap-export.json` (the account, its reviews,
    /// comments, likes, bookmarks and follows both ways) and `photos/<id>.jpg`, the account's
    /// review photos and avatar at full size. The document is read first; the answer is then
    /// written entry by entry, one photo file in memory at a time.
    @Sendable func export(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let now = Timestamp.now()
        let (document, photoIDs) = try await AccountExport.collect(
            user: context.user, accounts: accounts, reviews: reviews, social: social, blocks: blocks,
            notifications: notifications, at: now)
        let storage = media.storage
        let rows = media.rows
        let body = ResponseBody { writer in
            var zip = ZipStream(at: now)
            try await writer.write(zip.entry(named: "burgermap-export.json", document))
            for id in photoIDs {
                // A photo the store cannot give (deleted meanwhile, or the object store away)
                // is left out rather than failing the whole answer half-way.
                guard let data = try? await storage.fullImage(photoID: id, rows: rows), zip.fits(data.count)
                else { continue }
                try await writer.write(zip.entry(named: "photos/\(id).jpg", data))
            }
            try await writer.write(zip.end())
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip",
                .contentDisposition: "attachment; filename=\"burgermap-export-\(context.user.id).zip\"",
                .cacheControl: "no-store",
            ], body: body)
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
        guard user.id == context.user.id else { throw Problem(.unauthorized, .accessTokenInvalid) }
        try await Self.deleteAccount(user.id, accounts: accounts, media: media, logger: context.logger)
        return Response(status: .noContent)
    }

    /// Deletes the account in its store's one transaction, then its photo files; `401` when it
    /// is gone already (a second delete with the same token). The native and the app's routes
    /// both end an account here.
    static func deleteAccount(_ id: Int64, accounts: any AccountStore, media: MediaServices, logger: Logger)
        async throws
    {
        guard let photoIDs = try await accounts.deleteAccount(id: id) else {
            throw Problem(.unauthorized, .accessTokenInvalid)
        }
        await media.removeImages(photoIDs: photoIDs)
        logger.notice("account deleted", metadata: ["user_id": "\(id)", "photos": "\(photoIDs.count)"])
    }
}
