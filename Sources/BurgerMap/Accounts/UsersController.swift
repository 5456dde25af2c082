import BurgerMapCore
import Hummingbird

/// The user routes under `/v1/users`: the caller's own account and public profiles.
struct UsersController {
    let accounts: any AccountStore
    /// Public profiles: lag-tolerant reads (a replica's, or the primary's).
    let reads: ReadRouting
    let media: MediaServices
    let authentication: AccessTokenMiddleware
    /// Terms no nickname or bio may contain.
    var blockedWords = BlockedWords.none
    /// Per-user write limits (avatars have one of their own, `--write-limit avatar=…`).
    let writes: WriteLimiter

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let viewerAware = routes.group().add(middleware: authentication)
        viewerAware.group("me", context: AuthenticatedContext.self)
            .get(use: me)
            .patch(use: updateMe)
            .put("avatar", use: replaceAvatar)
        viewerAware.get(":id", use: profile)
        return routes
    }

    /// `GET /v1/users/me`: the caller's own profile with email (`Me`).
    @Sendable func me(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try await accounts.me(context.user).response()
    }

    /// `{nickname?, bio?}`. `"bio": null` clears the bio, as `""` does (JSON merge-patch
    /// reads null as "remove"); `"nickname": null` is refused, as a nickname cannot be removed.
    struct UpdateBody: Decodable {
        var nickname: String?
        var bio: String?

        enum CodingKeys: String, CodingKey { case nickname, bio }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            nickname = try container.decodeUnlessNull(String.self, forKey: .nickname)
            if container.contains(.bio), try container.decodeNil(forKey: .bio) {
                bio = ""
            } else {
                bio = try container.decodeIfPresent(String.self, forKey: .bio)
            }
        }
    }

    /// `PATCH /v1/users/me`: changes the nickname and/or the bio; answers `Me`.
    @Sendable func updateMe(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let body = try await request.decodeJSON(as: UpdateBody.self)
        var validator = BodyValidator()
        if let nickname = body.nickname { validator.check { AccountRules.checkNickname(nickname, into: &$0) } }
        if let bio = body.bio { validator.check { AccountRules.checkBio(bio, into: &$0) } }
        validator.check { errors in
            blockedWords.check(body.nickname, field: "nickname", into: &errors)
            blockedWords.check(body.bio, field: "bio", into: &errors)
        }
        try validator.validate()
        let updated: User?
        do {
            updated = try await accounts.updateProfile(
                id: context.user.id, nickname: body.nickname, bio: body.bio, at: .now())
        } catch let conflict as AccountConflict {
            throw AccountServices.problem(for: conflict)
        }
        guard let updated else { throw Problem(.unauthorized, .accessTokenInvalid) }
        return try await accounts.me(updated).response()
    }

    /// `GET /v1/users/{id}`: a public profile; `is_following` is the viewer's, when signed in.
    /// A lag-tolerant read: the account and its counts from the same store.
    @Sendable func profile(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.resourceID(.userNotFound)
        let viewer = context.identity?.id
        let profile = try await reads.run(request, context) { reads -> (User, ProfileStats)? in
            guard let user = try await reads.user(id: id) else { return nil }
            return (user, try await reads.profileStats(of: id, viewer: viewer))
        }
        guard let (user, stats) = profile else { throw Problem.notFound(.userNotFound, id: id) }
        return ProfileView(user: user, stats: stats, includesEmail: false).response()
    }

    /// `PUT /v1/users/me/avatar`: a multipart form with one file part `avatar`, processed like
    /// review photos; answers `Me`. The previous avatar's row and files go.
    @Sendable func replaceAvatar(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try await writes.admit(.avatar, user: context.user.id)
        return try await media.receive(request, fileField: "avatar", maxFiles: 1) { upload in
            guard let photo = upload.photos.first else { throw Problem.invalid("avatar", "required", .fieldRequired) }
            let storage = media.storage
            guard
                let result = try await accounts.replaceAvatar(
                    userID: context.user.id, photo: photo.size, at: .now(),
                    beforeCommit: { id in try storage.install([photo], as: [id], noting: upload.installed) })
            else { throw Problem(.unauthorized, .accessTokenInvalid) }
            if let replaced = result.replaced { await media.removeImages(photoIDs: [replaced]) }
            return try await accounts.me(result.user).response()
        }
    }
}
