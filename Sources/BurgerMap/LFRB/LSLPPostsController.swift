import BurgerMapCore
import Hummingbird

/// The app's post routes: restaurant posts are places, review posts are reviews, on the native
/// stores and rules (`PlacesController.CreateBody`, `ReviewsController.draft`'s field rules, the
/// photo pipeline); nothing of a post is stored twice.
struct LSLPPostsController {
    let settings: LSLPSettings
    let places: any PlaceStore
    let reviews: any ReviewStore
    let accounts: any AccountStore
    let social: any SocialStore
    let posts: any PostStore
    let photos: any PhotoStore
    let media: MediaServices
    let cursors: CursorCodec
    /// Terms no review or comment may contain.
    let blockedWords: BlockedWords
    /// How often a user may upload, post a review, comment, like or bookmark.
    let writes: WriteLimiter
    /// Blocks: no comment, like or bookmark between users who block one another.
    let blocks: any BlockStore

    /// Routes under `/v1`, all for a signed-in user.
    func addRoutes(to group: RouterGroup<AuthenticatedContext>) {
        group.post("posts/files", use: uploadFiles)
        group.post("posts", use: create)
        group.get("posts", use: list)
        group.get("posts/users/:id", use: listOfUser)
        group.get("posts/likes/me") { request, context in try await reacted(.like, request, context) }
        group.get("posts/likes-2/me") { request, context in try await reacted(.bookmark, request, context) }
        group.get("posts/:id", use: show)
        group.post("posts/:id/comments", use: comment)
        group.post("posts/:id/like") { request, context in try await react(.like, request, context) }
        group.post("posts/:id/like-2") { request, context in try await react(.bookmark, request, context) }
    }

    /// The post a path names, or `410`.
    static func postID(_ context: AuthenticatedContext) throws -> PostID {
        let text = context.parameters.get("id") ?? ""
        guard let id = PostID(text) else { throw LSLPError(410, .postNotFound, ["id": String(text.prefix(40))]) }
        return id
    }

    /// `POST /v1/posts/files`: 1…5 images in parts named `files`, through the native photo
    /// pipeline and limits, kept as the uploader's pending photos; `{files: [path…]}`, the paths
    /// a review post then names. Pending photos older than a day are deleted first.
    @Sendable func uploadFiles(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try await writes.admit(.upload, user: context.user.id)
        try await removeExpiredPendingPhotos(context)
        let storage = media.storage
        let ids = try await media.receive(request, fileField: "files", maxFiles: media.limits.files) { upload in
            guard !upload.photos.isEmpty else { throw LSLPError(400, .filesRequired) }
            return try await photos.addPendingPhotos(
                owner: context.user.id, photos: upload.photos.map(\.size), at: .now(),
                beforeCommit: { ids in try storage.install(upload.photos, as: ids, noting: upload.installed) })
        }
        var writer = JSONWriter(capacity: 128)
        writer.object { writer in LSLPViews.strings(&writer, "files", ids.map(LSLPFilePath.path(photoID:))) }
        return writer.response()
    }

    /// Deletes the rows and files of photos uploaded more than a day ago and never posted.
    func removeExpiredPendingPhotos(_ context: AuthenticatedContext) async throws {
        let cutoff = Timestamp(milliseconds: Timestamp.now().milliseconds - PendingPhotos.lifetime)
        let expired = try await photos.removePendingPhotos(uploadedBefore: cutoff)
        guard !expired.isEmpty else { return }
        await media.removeImages(photoIDs: expired)
        context.logger.info("removed expired pending photos", metadata: ["count": "\(expired.count)"])
    }

    /// `UploadPostRequest`.
    struct PostBody: Decodable {
        var title: String?
        var price: Int?
        var content: String?
        var content1: String?
        var content2: String?
        var content3: String?
        var content4: String?
        var content5: String?
        var productId: String?
        var files: [String]?
    }

    /// `POST /v1/posts`: a restaurant post adds a place (or answers the stored one with the same
    /// `content5`); a review post adds a review of the restaurant `content1` with the uploaded
    /// `files`. Either answers the post.
    @Sendable func create(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let body = try await request.decodeJSON(as: PostBody.self)
        guard let product = body.productId else {
            throw Problem.validation([FieldError(field: "product_id", code: "required", .fieldRequired)])
        }
        switch settings.kind(ofProduct: product) {
        case .restaurant: return try await createRestaurant(body, context)
        case .review: return try await createReview(body, context)
        case nil: throw LSLPError(400, .productUnknown, ["id": String(product.prefix(60))])
        }
    }

    private func createRestaurant(_ body: PostBody, _ context: AuthenticatedContext) async throws -> Response {
        func coordinate(_ text: String?, _ field: String) -> Double? {
            guard let text else { return nil }
            return Double(decimal: text.trimmingCharacters(in: .whitespaces))
        }
        var errors: [FieldError] = []
        let lng = coordinate(body.content1, "content1")
        let lat = coordinate(body.content2, "content2")
        if lng == nil { errors.append(FieldError(field: "content1", code: "not_a_number", .fieldNotNumber)) }
        if lat == nil { errors.append(FieldError(field: "content2", code: "not_a_number", .fieldNotNumber)) }
        if !errors.isEmpty { throw Problem.validation(errors) }
        let externalID = body.content5?.trimmingCharacters(in: .whitespaces)
        let draft = try PlacesController.CreateBody(
            name: body.title, lat: lat, lng: lng, address: body.content3, phone: body.content4,
            source: externalID?.isEmpty == false ? LSLPSettings.placeSource : nil, externalId: externalID
        ).draft()
        let (place, _) = try await places.createPlace(draft, by: context.user.id)
        let links = try await posts.reviewLinks(
            places: [place.id], limit: LSLPSettings.maximumEmbedded, viewer: context.user.id)
        var writer = JSONWriter(capacity: 1024)
        LSLPViews.restaurant(&writer, place, links: links[place.id] ?? [], product: settings.product(of: .restaurant))
        return writer.response()
    }

    private func createReview(_ body: PostBody, _ context: AuthenticatedContext) async throws -> Response {
        var validator = BodyValidator()
        let title = validator.required(body.title, "title")
        let text = validator.required(body.content, "content")
        let rating = validator.required(body.price, "price")
        let restaurant = validator.required(body.content1, "content1")
        let files = body.files ?? []
        validator.check { errors in
            if let title { TextField.reviewTitle.check(title, into: &errors) }
            if let text { TextField.reviewText.named("content").check(text, into: &errors) }
            blockedWords.check(title, field: "title", into: &errors)
            blockedWords.check(text, field: "content", into: &errors)
            if let rating, !(1...5).contains(rating) {
                errors.append(
                    FieldError(field: "price", code: "out_of_range", .fieldOutOfRange, ["min": "1", "max": "5"]))
            }
            if files.count > media.limits.files {
                errors.append(
                    FieldError(field: "files", code: "too_many", .tooManyPhotos, ["max": "\(media.limits.files)"]))
            }
        }
        try validator.validate()
        guard let title, let text, let rating, let restaurant else { throw Problem.validation([]) }
        guard case .place(let placeID) = PostID(restaurant) else { throw LSLPError(400, .restaurantRequired) }
        try await writes.admit(.review, user: context.user.id)
        var photoIDs: [Int64] = []
        for path in files {
            guard let id = LSLPFilePath.photoID(path), !photoIDs.contains(id) else {
                throw LSLPError(400, .filesUnavailable)
            }
            photoIDs.append(id)
        }
        let draft = ReviewDraft(
            placeID: placeID, authorID: context.user.id, rating: rating, title: title, text: text,
            pendingPhotoIDs: photoIDs)
        let outcome = try await reviews.createReview(
            draft, photos: [], idempotency: nil, at: .now(), beforeCommit: { _ in })
        switch outcome {
        case .created(let review):
            var writer = JSONWriter(capacity: 1024)
            LSLPViews.review(&writer, review, extras: .init(), product: settings.product(of: .review))
            return writer.response()
        case .replayed, .keyReused: throw StorageError.rowVanished("review")
        case .placeMissing: throw LSLPError(400, .restaurantRequired)
        case .photosUnavailable: throw LSLPError(400, .filesUnavailable)
        }
    }

    /// `GET /v1/posts/{id}`: one restaurant or review post.
    @Sendable func show(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try Self.postID(context)
        var writer = JSONWriter(capacity: 2048)
        switch id {
        case .place(let placeID):
            guard let place = try await places.place(id: placeID) else {
                throw LSLPError(410, .postNotFound, ["id": id.text])
            }
            let links = try await posts.reviewLinks(
                places: [placeID], limit: LSLPSettings.maximumEmbedded, viewer: context.user.id)
            LSLPViews.restaurant(
                &writer, place, links: links[placeID] ?? [], product: settings.product(of: .restaurant))
        case .review(let reviewID):
            guard let review = try await reviews.review(id: reviewID, viewer: context.user.id) else {
                throw LSLPError(410, .postNotFound, ["id": id.text])
            }
            let extras = try await Self.extras(of: [reviewID], posts: posts, viewer: context.user.id)
            LSLPViews.review(
                &writer, review, extras: extras[reviewID] ?? .init(), product: settings.product(of: .review))
        }
        return writer.response()
    }

    struct CommentBody: Decodable {
        var content: String?
    }

    /// `POST /v1/posts/{id}/comments`: on a review post, a comment; on a restaurant post, the
    /// app's link of a new review to its restaurant (`content` = the review's post id), which the
    /// review already is: it is answered as the restaurant lists it, and nothing is stored.
    @Sendable func comment(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try Self.postID(context)
        let body = try await request.decodeJSON(as: CommentBody.self)
        var validator = BodyValidator()
        let content = validator.required(body.content, "content")
        try validator.validate()
        guard let content else { throw Problem.validation([]) }
        var writer = JSONWriter(capacity: 512)
        switch id {
        case .place(let placeID):
            guard try await places.place(id: placeID) != nil else {
                throw LSLPError(410, .postNotFound, ["id": id.text])
            }
            guard case .review(let reviewID) = PostID(content),
                let review = try await reviews.review(id: reviewID, viewer: context.user.id), review.place.id == placeID
            else { throw LSLPError(400, .linkCommentInvalid) }
            writer.object { writer in
                writer.key("comment_id")
                writer.value(content)
                writer.key("content")
                writer.value(content)
                writer.key("createdAt")
                writer.value(review.createdAt)
                writer.key("creator")
                LSLPViews.creator(&writer, review.author)
            }
        case .review(let reviewID):
            var errors: [FieldError] = []
            TextField.commentText.named("content").check(content, into: &errors)
            blockedWords.check(content, field: "content", into: &errors)
            if !errors.isEmpty { throw Problem.validation(errors) }
            try await blocks.requireNotBlocked(context.user.id, authorOf: reviewID)
            try await writes.admit(.comment, user: context.user.id)
            guard
                let comment = try await social.addComment(
                    review: reviewID, author: context.user.id, text: content, at: .now())
            else { throw LSLPError(410, .postNotFound, ["id": id.text]) }
            LSLPViews.comment(&writer, comment)
        }
        return writer.response()
    }

    struct LikeBody: Decodable {
        var likeStatus: Bool?
    }

    /// `POST /v1/posts/{id}/like` and `like-2`: sets the like or bookmark to `like_status`
    /// (the state the app wants, not a toggle) and answers `{like_status}`.
    func react(_ reaction: Reaction, _ request: Request, _ context: AuthenticatedContext) async throws -> Response {
        let id = try Self.postID(context)
        let body = try await request.decodeJSON(as: LikeBody.self)
        var validator = BodyValidator()
        let active = validator.required(body.likeStatus, "like_status")
        try validator.validate()
        guard let active else { throw Problem.validation([]) }
        guard case .review(let reviewID) = id else { throw LSLPError(400, .postNotLikeable) }
        if active { try await blocks.requireNotBlocked(context.user.id, authorOf: reviewID) }
        try await writes.admit(.reaction, user: context.user.id)
        guard
            let state = try await social.setReaction(
                reaction, active: active, review: reviewID, user: context.user.id, at: .now())
        else { throw LSLPError(410, .postNotFound, ["id": id.text]) }
        var writer = JSONWriter(capacity: 32)
        writer.object { writer in
            writer.key("like_status")
            writer.value(state.active)
        }
        return writer.response()
    }
}
