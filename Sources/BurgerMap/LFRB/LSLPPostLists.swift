import BurgerMapCore
import Hummingbird
import NIOCore

/// The app's lists: `GET /v1/posts` (restaurants or reviews by `product_id`),
/// `/v1/posts/users/{id}`, `/v1/posts/likes/me` and `/v1/posts/likes-2/me`. Each answers
/// `{data, next_cursor}` with `next_cursor` `"0"` at the end; the cursor is signed for its list.
extension LSLPPostsController {
    /// The `next` and `limit` of a list request. `limit` is a decimal string (`21`, `300000`);
    /// above `maximum` it is cut to it, at most 20 when absent.
    struct ListParameters {
        var next: String?
        var limit: Int

        init(_ request: Request, maximum: Int) throws {
            let query = request.formQuery
            next = query["next"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            if let text = query["limit"], !text.isEmpty {
                guard let value = Int(text), value > 0 else {
                    throw Problem.invalid("limit", "not_an_integer", .fieldNotInteger)
                }
                limit = min(value, maximum)
            } else {
                limit = 20
            }
        }

        /// `true` when `next` is the end-of-list sentinel, which the app never sends back.
        var isPastEnd: Bool { next == "0" }
    }

    /// The kind of post a list's `product_id` asks for; `400` for an unknown or missing one.
    func kind(_ request: Request) throws -> PostKind {
        let product = request.formQuery["product_id"].map(String.init) ?? ""
        guard let kind = settings.kind(ofProduct: product) else {
            throw LSLPError(400, .productUnknown, ["id": String(product.prefix(60))])
        }
        return kind
    }

    /// `GET /v1/posts`: every restaurant (the app's map load asks for 300,000 and its
    /// duplicate check for 10,000: written as they are read), or every review, newest first.
    @Sendable func list(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        switch try kind(request) {
        case .restaurant:
            let parameters = try ListParameters(request, maximum: LSLPSettings.maximumPlaceLimit)
            var after: Int64 = 0
            if let next = parameters.next, !parameters.isPastEnd {
                after = try cursors.decode(PlaceIDKey.self, from: next, scope: Self.placesScope).id
            }
            if parameters.isPastEnd { return Self.emptyList() }
            return streamPlaces(after: after, limit: parameters.limit, viewer: context.user.id)
        case .review:
            return try await reviewList(.all, request, context)
        }
    }

    /// `GET /v1/posts/users/{id}`: a user's reviews, newest first (a user who does not exist:
    /// `410`). Restaurants belong to the map, not to a user (their creator is
    /// `LSLPViews.mapCreator`), so a user's restaurant list is empty.
    @Sendable func listOfUser(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let text = context.parameters.get("id") ?? ""
        guard let userID = Int64(text), userID > 0 else {
            throw LSLPError(410, .userNotFound, ["id": String(text.prefix(40))])
        }
        switch try kind(request) {
        case .restaurant: return Self.emptyList()
        case .review: return try await reviewList(.author(userID), request, context)
        }
    }

    /// `GET /v1/posts/likes/me` and `likes-2/me`: the reviews the caller liked or bookmarked,
    /// most recent first.
    func reacted(_ reaction: Reaction, _ request: Request, _ context: AuthenticatedContext) async throws -> Response {
        let parameters = try ListParameters(request, maximum: LSLPSettings.maximumReviewLimit)
        let scope = "lslp|\(reaction.rawValue)|\(context.user.id)"
        if parameters.isPastEnd { return Self.emptyList() }
        let after = try parameters.next.map { try cursors.decode(TimeKey.self, from: $0, scope: scope) }
        let page = try await social.reactedReviews(
            reaction, user: context.user.id, after: after, limit: parameters.limit)
        return try await reviewPosts(page, scope: scope, viewer: context.user.id)
    }

    private func reviewList(_ scope: ReviewListScope, _ request: Request, _ context: AuthenticatedContext)
        async throws -> Response
    {
        let parameters = try ListParameters(request, maximum: LSLPSettings.maximumReviewLimit)
        let cursorScope = "lslp|" + scope.cursorScope
        if parameters.isPastEnd { return Self.emptyList() }
        let after = try parameters.next.map { try cursors.decode(TimeKey.self, from: $0, scope: cursorScope) }
        let page = try await reviews.reviews(scope, after: after, limit: parameters.limit, viewer: context.user.id)
        if case .author(let userID) = scope, page.items.isEmpty, after == nil,
            try await !accounts.userExists(id: userID)
        {
            throw LSLPError(410, .userNotFound, ["id": String(userID)])
        }
        return try await reviewPosts(page, scope: cursorScope, viewer: context.user.id)
    }

    /// A page of review posts with their likers, bookmarkers and comments.
    private func reviewPosts(_ page: KeysetPage<Review>, scope: String, viewer: Int64) async throws -> Response {
        let extras = try await Self.extras(of: page.items.map(\.id), posts: posts, viewer: viewer)
        let product = settings.product(of: .review)
        var writer = JSONWriter(capacity: 1024 + page.items.count * 1024)
        writer.object { writer in
            writer.key("data")
            writer.array { writer in
                for review in page.items {
                    LSLPViews.review(&writer, review, extras: extras[review.id] ?? .init(), product: product)
                }
            }
            writer.key("next_cursor")
            writer.value(page.next.map { cursors.encode($0, scope: scope) } ?? "0")
        }
        return writer.response()
    }

    /// What review posts embed, for a whole page in three reads.
    static func extras(of reviewIDs: [Int64], posts: any PostStore, viewer: Int64) async throws -> [Int64:
        LSLPViews.ReviewExtras]
    {
        guard !reviewIDs.isEmpty else { return [:] }
        async let likes = posts.reactingUsers(.like, reviews: reviewIDs, limit: LSLPSettings.maximumEmbedded)
        async let bookmarks = posts.reactingUsers(.bookmark, reviews: reviewIDs, limit: LSLPSettings.maximumEmbedded)
        async let comments = posts.comments(
            reviews: reviewIDs, limit: LSLPSettings.maximumEmbeddedComments, viewer: viewer)
        let (liked, bookmarked, commented) = try await (likes, bookmarks, comments)
        var extras: [Int64: LSLPViews.ReviewExtras] = [:]
        for id in reviewIDs {
            extras[id] = LSLPViews.ReviewExtras(
                likes: liked[id] ?? [], bookmarks: bookmarked[id] ?? [], comments: commented[id] ?? [])
        }
        return extras
    }

    static func emptyList() -> Response {
        jsonResponse(Array(#"{"data":[],"next_cursor":"0"}"#.utf8), status: .ok)
    }

    static let placesScope = "lslp|places"
    /// Places read per statement while a restaurant list is written.
    static let placeBatch = 1_000

    /// Up to `limit` restaurant posts after place `after`, by id, written batch by batch as they
    /// are read: a map load of a million places holds one batch in memory, and its first bytes
    /// leave before the second batch is read. Each batch is its own read, so a place added
    /// meanwhile shows up if its id is still ahead. A read that fails after the first bytes
    /// cuts the answer short (its status has been sent); the app shows its error toast.
    func streamPlaces(after: Int64, limit: Int, viewer: Int64) -> Response {
        let posts = self.posts
        let cursors = self.cursors
        let product = settings.product(of: .restaurant)
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: #"{"data":["#))
            var remaining = limit
            var last = after
            var more = false
            var first = true
            while remaining > 0 {
                let batch = min(Self.placeBatch, remaining)
                // One row past the batch says whether more follow.
                let rows = try await posts.places(afterID: last, limit: batch + 1)
                let taken = rows.prefix(batch)
                let reviewed = taken.filter { $0.reviewCount > 0 }.map(\.id)
                let links =
                    reviewed.isEmpty
                    ? [:]
                    : try await posts.reviewLinks(places: reviewed, limit: LSLPSettings.maximumEmbedded, viewer: viewer)
                var json = JSONWriter(capacity: taken.count * 700)
                // The array's items so far went out with earlier batches.
                if !first { json.continueAfterEarlierItems() }
                for place in taken {
                    LSLPViews.restaurant(&json, place, links: links[place.id] ?? [], product: product)
                }
                first = first && taken.isEmpty
                if !taken.isEmpty { try await writer.write(ByteBuffer(bytes: json.bytes)) }
                remaining -= taken.count
                last = taken.last?.id ?? last
                more = rows.count > taken.count
                if !more { break }
            }
            let next = more ? cursors.encode(PlaceIDKey(id: last), scope: Self.placesScope) : "0"
            var tail = JSONWriter(capacity: 128)
            tail.value(next)
            try await writer.write(ByteBuffer(string: #"],"next_cursor":"#))
            try await writer.write(ByteBuffer(bytes: tail.bytes))
            try await writer.write(ByteBuffer(string: "}"))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: body)
    }
}

/// A position in the list of places by id.
struct PlaceIDKey: CursorPosition {
    var id: Int64

    init(id: Int64) { self.id = id }

    var cursorText: String { String(id) }

    init?(cursorText: String) {
        guard let id = Int64(cursorText), id >= 0 else { return nil }
        self.id = id
    }
}
