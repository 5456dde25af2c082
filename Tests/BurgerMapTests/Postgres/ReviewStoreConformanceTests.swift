import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres

/// Creating, replaying, changing and listing reviews: the same outcomes on every engine.
@Suite("Review stores answer alike")
struct ReviewStoreConformanceTests {
    struct InstallFailed: Error {}

    static func draft(_ place: Int64, _ author: Int64, rating: Int = 4, text: String = "Smashed right.")
        -> ReviewDraft
    {
        ReviewDraft(placeID: place, authorID: author, rating: rating, text: text)
    }

    @Test(
        "create: the review as its author sees it, photos in order with the ids the before-commit step got, place stats",
        arguments: StoreEngine.available)
    func create(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let avatar = try await harness.setAvatar(userID: author)
            let place = try await harness.makePlace("Patty Lab")
            let seen = Recorded<[Int64]>([])
            let outcome = try await harness.reviews.createReview(
                Self.draft(place, author, rating: 5),
                photos: [PhotoSize(width: 800, height: 600), .init(width: 3, height: 4)],
                idempotency: nil, at: moment(0), beforeCommit: { seen.set($0) })
            guard case .created(let review) = outcome else {
                Issue.record("expected created, got \(outcome)")
                return
            }
            #expect(review.photos.map(\.id) == seen.current && seen.current.count == 2)
            #expect(review.photos.map(\.width) == [800, 3] && review.photos.map(\.height) == [600, 4])
            #expect(review.photos.first?.url == PhotoURL.full(seen.current[0]))
            #expect(review.author.id == author && review.author.nickname == "author")
            #expect(review.author.avatarUrl == PhotoURL.thumbnail(avatar))
            #expect(review.place == Review.PlaceSummary(id: place, name: "Patty Lab", lat: 37.5, lng: 127.0))
            #expect(review.rating == 5 && review.text == "Smashed right.")
            #expect(review.createdAt == moment(0) && review.updatedAt == moment(0))
            #expect(review.likeCount == 0 && review.commentCount == 0 && !review.likedByMe)
            #expect(try await harness.reviews.review(id: review.id, viewer: nil) == review)
            #expect(try await harness.reviews.reviewVisible(id: review.id, viewer: nil))
            #expect(try await !harness.reviews.reviewVisible(id: review.id + 1000, viewer: nil))
            #expect(try await harness.reviews.review(id: review.id + 1000, viewer: nil) == nil)
            let stored = try #require(try await harness.store.place(id: place))
            #expect(stored.reviewCount == 1 && stored.ratingAvg == 5)
            #expect(stored.coverPhotoUrl == PhotoURL.full(seen.current[0]))
        }
    }

    @Test(
        "a key's claim keeps its request's fingerprint: another fingerprint is refused and stores nothing",
        arguments: StoreEngine.available)
    func fingerprints(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let place = try await harness.makePlace("Patty Lab")
            func create(_ fingerprint: String?) async throws -> ReviewCreation {
                try await harness.reviews.createReview(
                    Self.draft(place, author), photos: [],
                    idempotency: IdempotencyKey(userID: author, key: "k-f", fingerprint: fingerprint), at: moment(0),
                    beforeCommit: { _ in })
            }
            guard case .created(let first) = try await create("a") else {
                Issue.record("the first request must create")
                return
            }
            guard case .replayed(let same) = try await create("a"), same == first.id else {
                Issue.record("the same fingerprint must replay")
                return
            }
            guard case .keyReused = try await create("b") else {
                Issue.record("another fingerprint must be refused")
                return
            }
            // A request that says no fingerprint (a claim made before they were kept) replays.
            guard case .replayed = try await create(nil) else {
                Issue.record("no fingerprint must replay")
                return
            }
            #expect(try await harness.rowCount("reviews") == 1)
        }
    }

    @Test(
        "an Idempotency-Key names its first review for 24 hours, for its user only, its kept answer beside it; then it makes a new review",
        arguments: StoreEngine.available)
    func replay(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let other = try await harness.makeUser("other")
            let place = try await harness.makePlace("Patty Lab")
            let key = IdempotencyKey(userID: author, key: "k-1")
            func create(_ key: IdempotencyKey, _ author: Int64, at time: Timestamp) async throws -> ReviewCreation {
                try await harness.reviews.createReview(
                    Self.draft(place, author), photos: [], idempotency: key, at: time, beforeCommit: { _ in })
            }
            guard case .created(let first) = try await create(key, author, at: moment(0)) else {
                Issue.record("the first request must create")
                return
            }
            let lifetime = IdempotencyKey.lifetime
            // The claim names the review before any answer is kept.
            guard case .replayed(let claimed) = try await create(key, author, at: moment(1)), claimed == first.id else {
                Issue.record("the same key must name the first review")
                return
            }
            #expect(try await harness.idempotency.keptAnswer(key, at: moment(1)) == nil)
            let answer = StoredAnswer(status: 201, body: Array("first \(first.id)".utf8))
            try await harness.idempotency.keepAnswer(answer, for: key)
            // A second keep of the same key changes nothing.
            try await harness.idempotency.keepAnswer(StoredAnswer(status: 201, body: [1]), for: key)
            guard case .replayed(let again) = try await create(key, author, at: moment(lifetime - 1)), again == first.id
            else {
                Issue.record("the same key within 24 hours must replay")
                return
            }
            #expect(try await harness.idempotency.keptAnswer(key, at: moment(lifetime - 1)) == answer)
            #expect(try await harness.idempotency.keptAnswer(key, at: moment(lifetime)) == nil)
            // Another user's identical key is their own.
            guard case .created = try await create(IdempotencyKey(userID: other, key: "k-1"), other, at: moment(1))
            else {
                Issue.record("another user's key must create")
                return
            }
            // After 24 hours the key makes a new review, whose answer is then kept and replayed.
            guard case .created(let second) = try await create(key, author, at: moment(lifetime)) else {
                Issue.record("an expired key must create")
                return
            }
            #expect(second.id != first.id)
            #expect(try await harness.idempotency.keptAnswer(key, at: moment(lifetime + 1)) == nil)
            let secondAnswer = StoredAnswer(status: 201, body: Array("second \(second.id)".utf8))
            try await harness.idempotency.keepAnswer(secondAnswer, for: key)
            #expect(try await harness.idempotency.keptAnswer(key, at: moment(lifetime + 1)) == secondAnswer)
            #expect(try await harness.store.place(id: place)?.reviewCount == 3)
        }
    }

    @Test(
        "concurrent creations with one key end with one review; every other one names it",
        arguments: StoreEngine.available)
    func concurrentKey(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let place = try await harness.makePlace("Patty Lab")
            let key = IdempotencyKey(userID: author, key: "retry-storm")
            let outcomes = try await withThrowingTaskGroup(of: ReviewCreation.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await harness.reviews.createReview(
                            Self.draft(place, author), photos: [PhotoSize(width: 10, height: 10)], idempotency: key,
                            at: moment(Int64(index)), beforeCommit: { _ in })
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var created: [Int64] = []
            var replayed: [Int64?] = []
            for outcome in outcomes {
                switch outcome {
                case .created(let review): created.append(review.id)
                case .replayed(let reviewID): replayed.append(reviewID)
                case .placeMissing, .photosUnavailable, .keyReused:
                    Issue.record("the place exists, no photo is pending and every request is the same")
                }
            }
            #expect(created.count == 1 && replayed.count == 11)
            #expect(replayed.allSatisfy { $0 == created[0] })
            #expect(try await harness.rowCount("reviews") == 1)
            #expect(try await harness.rowCount("photos") == 1)
            #expect(try await harness.store.place(id: place)?.reviewCount == 1)
        }
    }

    @Test(
        "a missing place and a failing before-commit step leave no row, no answer and unchanged place counts",
        arguments: StoreEngine.available)
    func nothingLeft(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let place = try await harness.makePlace("Patty Lab")
            let kept = try await harness.review(
                place: place, author: author, rating: 2, photos: [PhotoSize(width: 5, height: 5)], at: moment(0))
            let before = try #require(try await harness.store.place(id: place))
            let key = IdempotencyKey(userID: author, key: "k")
            let missing = try await harness.reviews.createReview(
                Self.draft(place + 1000, author), photos: [], idempotency: key, at: moment(1), beforeCommit: { _ in })
            guard case .placeMissing = missing else {
                Issue.record("expected placeMissing, got \(missing)")
                return
            }
            #expect(try await harness.idempotency.keptAnswer(key, at: moment(2)) == nil)
            await #expect(throws: InstallFailed.self) {
                try await harness.reviews.createReview(
                    Self.draft(place, author, rating: 5),
                    photos: [PhotoSize(width: 9, height: 9), PhotoSize(width: 8, height: 8)], idempotency: key,
                    at: moment(3), beforeCommit: { _ in throw InstallFailed() })
            }
            #expect(try await harness.idempotency.keptAnswer(key, at: moment(4)) == nil)
            #expect(try await harness.store.place(id: place) == before)
            #expect(before.reviewCount == 1 && before.ratingAvg == 2)
            #expect(before.coverPhotoUrl == PhotoURL.full(kept.photos[0].id))
            #expect(try await harness.rowCount("reviews") == 1)
            #expect(try await harness.rowCount("photos") == 1)
            // The key is still free: the retry creates.
            let retry = try await harness.reviews.createReview(
                Self.draft(place, author), photos: [], idempotency: key, at: moment(5), beforeCommit: { _ in })
            guard case .created = retry else {
                Issue.record("the retry must create, got \(retry)")
                return
            }
        }
    }

    @Test(
        "update and delete: the author only; rating, text and the place's counts and cover follow",
        arguments: StoreEngine.available)
    func ownerChanges(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let other = try await harness.makeUser("other")
            let place = try await harness.makePlace("Patty Lab")
            let a = try await harness.review(
                place: place, author: author, rating: 2, photos: [PhotoSize(width: 1, height: 1)], at: moment(0))
            _ = try await harness.review(place: place, author: other, rating: 4, at: moment(1))
            let c = try await harness.review(
                place: place, author: author, rating: 3,
                photos: [PhotoSize(width: 2, height: 2), PhotoSize(width: 3, height: 3)], at: moment(2))
            #expect(try await harness.store.place(id: place)?.coverPhotoUrl == PhotoURL.full(c.photos[0].id))

            let reviews = harness.reviews
            #expect(
                try await reviews.updateReview(id: a.id, by: other, rating: 5, text: nil, at: moment(9)).isForbidden)
            #expect(
                try await reviews.updateReview(id: 9_999, by: author, rating: 5, text: nil, at: moment(9)).isNotFound)
            let rated = try #require(
                try await reviews.updateReview(id: a.id, by: author, rating: 5, text: nil, at: moment(10)).done)
            #expect(rated.rating == 5 && rated.text == a.text && rated.updatedAt == moment(10))
            #expect(rated.createdAt == a.createdAt && rated.photos == a.photos)
            let retold = try #require(
                try await reviews.updateReview(id: a.id, by: author, rating: nil, text: "Better now.", at: moment(11))
                    .done)
            #expect(retold.rating == 5 && retold.text == "Better now." && retold.updatedAt == moment(11))
            #expect(try await reviews.review(id: a.id, viewer: author) == retold)
            var stored = try #require(try await harness.store.place(id: place))
            #expect(stored.reviewCount == 3 && stored.ratingAvg == 4)

            #expect(try await reviews.deleteReview(id: c.id, by: other).isForbidden)
            #expect(try await reviews.deleteReview(id: 9_999, by: author).isNotFound)
            let removed = try #require(try await reviews.deleteReview(id: c.id, by: author).done)
            #expect(removed.sorted() == c.photos.map(\.id).sorted())
            #expect(try await reviews.review(id: c.id, viewer: nil) == nil)
            #expect(try await reviews.deleteReview(id: c.id, by: author).isNotFound)
            // The cover falls back to the newest remaining review with photos.
            stored = try #require(try await harness.store.place(id: place))
            #expect(stored.reviewCount == 2 && stored.ratingAvg == 4.5)
            #expect(stored.coverPhotoUrl == PhotoURL.full(a.photos[0].id))
            #expect(try await harness.rowCount("photos") == 1)
        }
    }

    @Test(
        "lists: newest first, ties by id, across pages without duplicates or gaps, per place and per author",
        arguments: StoreEngine.available)
    func paging(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let users = [try await harness.makeUser("ann"), try await harness.makeUser("bob")]
            let places = [try await harness.makePlace("One"), try await harness.makePlace("Two")]
            var all: [Review] = []
            // Groups of up to four reviews share a time, so pages often end inside a group.
            for index in 0..<23 {
                all.append(
                    try await harness.review(
                        place: places[index % 2], author: users[index / 3 % 2], at: moment(Int64(index / 4))))
            }
            let liked = all[5].id
            _ = try await harness.social.setReaction(.like, active: true, review: liked, user: users[0], at: moment(99))
            let newestFirst = all.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
            let scopes: [(ReviewListScope, (Review) -> Bool)] = [
                (.all, { _ in true }), (.place(places[1]), { $0.place.id == places[1] }),
                (.author(users[0]), { $0.author.id == users[0] }), (.author(9_999), { _ in false }),
            ]
            for (scope, kept) in scopes {
                let expected = newestFirst.filter(kept).map(\.id)
                for limit in [1, 4, 7, 50] {
                    let found = try await allPages(limit: limit) { after in
                        try await harness.reviews.reviews(scope, after: after, limit: limit, viewer: users[0])
                    }
                    #expect(found.map(\.id) == expected, "\(scope), limit \(limit)")
                    #expect(found.filter(\.likedByMe).map(\.id) == (expected.contains(liked) ? [liked] : []))
                }
            }
            let anonymous = try await harness.reviews.reviews(.all, after: nil, limit: 50, viewer: nil)
            #expect(anonymous.items.allSatisfy { !$0.likedByMe && !$0.bookmarkedByMe })
            #expect(anonymous.items.first { $0.id == liked }?.likeCount == 1)
            #expect(anonymous.next == nil)
        }
    }
}
