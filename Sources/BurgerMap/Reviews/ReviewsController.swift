import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird

/// The review routes: `/v1/reviews`, plus the review lists and uploads under `/v1/places/{id}`
/// and `/v1/users/{id}` (mounted by `buildRouter` with `placeEndpoints` and `userEndpoints`).
struct ReviewsController {
    let reviews: any ReviewStore
    /// The answers kept for `Idempotency-Key` replays.
    let idempotency: any IdempotencyStore
    /// The `Idempotency-Key`s whose first request is running on this instance.
    let idempotentRequests = IdempotentRequests()
    let places: any PlaceStore
    /// The public review lists' reads (a replica's, or the primary's).
    let reads: ReadRouting
    let media: MediaServices
    let cursors: CursorCodec
    let authentication: AccessTokenMiddleware
    /// Terms no review title or text may contain.
    var blockedWords = BlockedWords.none
    /// How often a user may post a review.
    let writes: WriteLimiter

    /// `/v1/reviews` routes.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let viewerAware = routes.group().add(middleware: authentication)
        viewerAware.get { request, context in try await list(request, context, scope: .all) }
        viewerAware.get(":id", use: show)
        viewerAware.group(context: AuthenticatedContext.self)
            .patch(":id", use: update)
            .delete(":id", use: delete)
        return routes
    }

    /// `/v1/places/{id}/reviews` routes.
    var placeEndpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let viewerAware = routes.group().add(middleware: authentication)
        viewerAware.get(":id/reviews") { request, context in
            let id = try context.parameters.resourceID(.placeNotFound)
            return try await list(request, context, scope: .place(id))
        }
        viewerAware.group(context: AuthenticatedContext.self).post(":id/reviews", use: create)
        return routes
    }

    /// `/v1/users/{id}/reviews`.
    var userEndpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.group().add(middleware: authentication).get(":id/reviews") { request, context in
            let id = try context.parameters.resourceID(.userNotFound)
            return try await list(request, context, scope: .author(id))
        }
        return routes
    }

    /// A page of reviews, newest first (ties by id), keyset-paged with a cursor signed for this
    /// list. The list of a missing place or user is `404`, not empty. A lag-tolerant read: the
    /// page and whether its place or user exists come from the same store, so a replica that
    /// has not replayed a new place yet answers as the primary did a moment ago.
    func list(_ request: Request, _ context: AppRequestContext, scope: ReviewListScope) async throws -> Response {
        let query = try ListQuery(request, cursors: cursors, scope: scope.cursorScope)
        let (after, limit, viewer) = (query.after, query.limit, context.identity?.id)
        let (page, ownerExists) = try await reads.run(request, context) { reads in
            let page = try await reads.reviews(scope, after: after, limit: limit, viewer: viewer)
            guard page.items.isEmpty else { return (page, true) }
            switch scope {
            case .all: return (page, true)
            case .place(let id): return (page, try await reads.placeExists(id: id))
            case .author(let id): return (page, try await reads.userExists(id: id))
            }
        }
        switch scope {
        case .place(let id) where !ownerExists: throw Problem.notFound(.placeNotFound, id: id)
        case .author(let id) where !ownerExists: throw Problem.notFound(.userNotFound, id: id)
        default: break
        }
        return page.response(for: request, query: query, cursors: cursors)
    }

    /// `GET /v1/reviews/{id}`.
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.resourceID(.reviewNotFound)
        guard let review = try await reviews.review(id: id, viewer: context.identity?.id) else {
            throw Problem.notFound(.reviewNotFound, id: id)
        }
        return review.response()
    }

    /// `POST /v1/places/{id}/reviews`: a multipart form with `rating`, `text` and up to five
    /// `photo` files. All or nothing: any failure leaves no row and no file. With an
    /// `Idempotency-Key` seen from this user in the last 24 hours, the first answer is replayed.
    @Sendable func create(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let placeID = try context.parameters.resourceID(.placeNotFound)
        // A key seen before replays its first answer only once this request's own form has been
        // read and checked (`createReview` finds the stored answer): a request with the same key
        // but an invalid form gets its own error, not another request's success.
        let key = try Self.idempotencyKey(request, userID: context.user.id)
        guard try await places.place(id: placeID) != nil else { throw Problem.notFound(.placeNotFound, id: placeID) }
        // Counted before the upload is read: a flood of uploads is refused before any image is decoded.
        try await writes.admit(.review, user: context.user.id)
        return try await idempotentRequests.run(key) {
            try await media.receive(
                request, fileField: "photo", maxFiles: media.limits.files, textFields: ["rating", "title", "text"],
                digestingFiles: key != nil
            ) { upload in
                var idempotency = key
                idempotency?.fingerprint = IdempotentRequests.fingerprint(
                    method: request.method.rawValue, path: request.uri.path,
                    fields: ["rating", "title", "text"].map { ($0, upload.fields.text($0)) },
                    fileDigests: upload.fileDigests)
                return try await store(upload, placeID: placeID, idempotency: idempotency, context)
            }
        }
    }

    /// The review of a read upload, stored; or the answer a key's earlier request was given.
    private func store(
        _ upload: PhotoUpload, placeID: Int64, idempotency: IdempotencyKey?, _ context: AuthenticatedContext
    ) async throws -> Response {
        let draft = try Self.draft(
            upload.fields, placeID: placeID, authorID: context.user.id, blockedWords: blockedWords)
        let storage = media.storage
        let outcome = try await reviews.createReview(
            draft, photos: upload.photos.map(\.size), idempotency: idempotency, at: .now(),
            beforeCommit: { ids in try storage.install(upload.photos, as: ids, noting: upload.installed) })
        switch outcome {
        case .created(let review):
            let body = review.jsonBytes
            if let idempotency { await keep(StoredAnswer(status: 201, body: body), for: idempotency, context) }
            return Self.created(body, review: review.id)
        case .replayed(let reviewID):
            var response = try await replay(idempotency, reviewID: reviewID, context)
            response.headers[IdempotentRequests.replayedHeader] = "true"
            return response
        case .keyReused:
            throw Problem(.idempotencyKeyReused, .idempotencyKeyReused)
        case .placeMissing:
            throw Problem.notFound(.placeNotFound, id: placeID)
        case .photosUnavailable:
            // A native upload attaches no pending photo.
            throw StorageError.rowVanished("pending photo")
        }
    }

    /// A `201` with the review's body and its `Location`.
    static func created(_ body: [UInt8], review id: Int64) -> Response {
        var response = jsonResponse(body, status: .created)
        response.headers[.location] = "/v1/reviews/\(id)"
        return response
    }

    /// Keeps the answer sent for `key` for its replays. A failure loses only the exact bytes: a
    /// replay then answers the key's review as it is (`replay`), so the request still succeeds.
    func keep(_ answer: StoredAnswer, for key: IdempotencyKey, _ context: AuthenticatedContext) async {
        do {
            try await idempotency.keepAnswer(answer, for: key)
        } catch {
            context.logger.warning("idempotent answer not kept", metadata: ["error": "\(error)"])
        }
    }

    /// The answer to a request whose `Idempotency-Key` an earlier request of the user claimed:
    /// the kept answer, byte for byte; while none is kept yet (the earlier request between its
    /// commit and `keep`, or killed there), its review as it is now, kept from then on.
    func replay(_ key: IdempotencyKey?, reviewID: Int64?, _ context: AuthenticatedContext) async throws -> Response {
        guard let key else { throw StorageError.rowVanished("idempotency key") }
        if let kept = try await idempotency.keptAnswer(key, at: .now()) {
            var response = jsonResponse(kept.body, status: HTTPResponse.Status(code: kept.status))
            if kept.status == 201, let id = Self.reviewID(inStoredAnswer: kept.body) {
                response.headers[.location] = "/v1/reviews/\(id)"
            }
            return response
        }
        guard let reviewID, let review = try await reviews.review(id: reviewID, viewer: key.userID) else {
            throw Problem.notFound(.reviewNotFound, id: reviewID ?? 0)
        }
        let body = review.jsonBytes
        await keep(StoredAnswer(status: 201, body: body), for: key, context)
        return Self.created(body, review: review.id)
    }

    /// The `id` of a stored `201` answer (a Review). The replay table keeps only the status and
    /// the body, and the body names the review, so no column is read for the `Location`.
    static func reviewID(inStoredAnswer body: [UInt8]) -> Int64? {
        let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        return (object?["id"] as? NSNumber)?.int64Value
    }

    /// The review fields of a form, checked by the contract's rules.
    static func draft(_ fields: FormFields, placeID: Int64, authorID: Int64, blockedWords: BlockedWords) throws
        -> ReviewDraft
    {
        var validator = BodyValidator()
        validator.check { errors in errors += fields.errors }
        let rating = validator.required(fields.text("rating"), "rating")
        let text = validator.required(fields.text("text"), "text")
        let title = fields.text("title")
        var ratingValue: Int?
        validator.check { errors in
            if let rating { ratingValue = ReviewRules.rating(rating, into: &errors) }
            if let title { TextField.reviewTitle.check(title, into: &errors) }
            if let text { TextField.reviewText.check(text, into: &errors) }
            blockedWords.check(title, field: "title", into: &errors)
            blockedWords.check(text, field: "text", into: &errors)
        }
        try validator.validate()
        guard let ratingValue, let text else { throw Problem.validation([]) }
        return ReviewDraft(placeID: placeID, authorID: authorID, rating: ratingValue, title: title, text: text)
    }

    /// The `Idempotency-Key` header: 1 to 255 visible ASCII characters.
    static func idempotencyKey(_ request: Request, userID: Int64) throws -> IdempotencyKey? {
        guard let value = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
        guard (1...255).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem.invalid("Idempotency-Key", "invalid", .idempotencyKeyInvalid)
        }
        return IdempotencyKey(userID: userID, key: value)
    }

    /// `{rating?, title?, text?}`; `null` for the rating or the text is refused (neither can be
    /// cleared), `null` for the title clears it.
    struct UpdateBody: Decodable {
        var rating: Int?
        var text: String?
        /// `nil`: unchanged (or cleared, with `clearsTitle`).
        var title: String?
        /// Whether the body's `title` is `null`.
        var clearsTitle = false

        enum CodingKeys: String, CodingKey { case rating, title, text }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            rating = try container.decodeUnlessNull(Int.self, forKey: .rating)
            text = try container.decodeUnlessNull(String.self, forKey: .text)
            title = try container.decodeIfPresent(String.self, forKey: .title)
            clearsTitle = container.contains(.title) && title == nil
        }
    }

    /// `PATCH /v1/reviews/{id}`: the author changes the rating and/or text; anyone else is `403`.
    @Sendable func update(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.reviewNotFound)
        let body = try await request.decodeJSON(as: UpdateBody.self)
        var validator = BodyValidator()
        validator.check { errors in
            if let rating = body.rating { ReviewRules.checkRating(rating, into: &errors) }
            if let text = body.text { TextField.reviewText.check(text, into: &errors) }
            if let title = body.title { TextField.reviewTitle.check(title, into: &errors) }
            blockedWords.check(body.title, field: "title", into: &errors)
            blockedWords.check(body.text, field: "text", into: &errors)
        }
        try validator.validate()
        switch try await reviews.updateReview(
            id: id, by: context.user.id, rating: body.rating, title: body.clearsTitle ? "" : body.title,
            text: body.text,
            at: .now())
        {
        case .done(let review): return review.response()
        case .notFound: throw Problem.notFound(.reviewNotFound, id: id)
        case .forbidden: throw Problem(.forbidden, .notReviewAuthor)
        }
    }

    /// `DELETE /v1/reviews/{id}`: the author removes a review with its photos (rows and files).
    @Sendable func delete(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.reviewNotFound)
        switch try await reviews.deleteReview(id: id, by: context.user.id) {
        case .done(let photoIDs):
            await media.removeImages(photoIDs: photoIDs)
            return Response(status: .noContent)
        case .notFound: throw Problem.notFound(.reviewNotFound, id: id)
        case .forbidden: throw Problem(.forbidden, .notReviewAuthor)
        }
    }
}
