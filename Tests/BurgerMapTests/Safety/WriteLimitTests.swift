import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Per-user write limits")
struct WriteLimitTests {
    @Test("limits parse as COUNT/SECONDS")
    func parsing() {
        #expect(WriteLimit("10/60") == WriteLimit(count: 10, seconds: 60))
        for text in ["10", "0/60", "10/0", "-1/60", "10/86401", "a/b", "10/60/1"] {
            #expect(WriteLimit(text) == nil, "\(text)")
        }
    }

    @Test(
        "comments, likes, follows and reviews stop at the limit with 429 and Retry-After, per user, until the window ends",
        arguments: StoreEngine.available)
    func limits(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        // Windows start on whole minutes: the clock starts 10 s into one.
        let start = Timestamp.now().milliseconds / 60_000 * 60_000 + 60_000 + 10_000
        let clock = TestClock(startingAt: Timestamp(milliseconds: start))
        environment.clock = clock
        environment.configuration.writeLimits[.comment] = WriteLimit(count: 3, seconds: 60)
        environment.configuration.writeLimits[.reaction] = WriteLimit(count: 2, seconds: 60)
        environment.configuration.writeLimits[.follow] = WriteLimit(count: 1, seconds: 60)
        environment.configuration.writeLimits[.review] = WriteLimit(count: 1, seconds: 60)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Busy Burgers", token: alice.token)
            let review = try await client.postReview(place: place, token: alice.token)
            #expect(review.status == .created)
            let reviewID = try #require(try json(review)["id"] as? Int)
            let second = try await client.postReview(place: place, photos: [TestImages.jpeg()], token: alice.token)
            #expect(second.status == .tooManyRequests)
            #expect(second.headers[.retryAfter] == "50")
            #expect(try problemCode(second) == "rate_limited")
            #expect(try await environment.reviewRowCounts() == (1, 0))

            for index in 0..<3 {
                let comment = try await client.send(
                    .post, "/v1/reviews/\(reviewID)/comments", json: ["text": "comment \(index)"], token: alice.token)
                #expect(comment.status == .created)
            }
            let fourth = try await client.send(
                .post, "/v1/reviews/\(reviewID)/comments", json: ["text": "one too many"], token: alice.token)
            #expect(fourth.status == .tooManyRequests && fourth.headers[.retryAfter] == "50")
            // Another user has a budget of their own.
            let other = try await client.send(
                .post, "/v1/reviews/\(reviewID)/comments", json: ["text": "bob's"], token: bob.token)
            #expect(other.status == .created)
            #expect(try await environment.rowCount("comments") == 4)

            #expect(try await client.send(.put, "/v1/reviews/\(reviewID)/like", token: bob.token).status == .ok)
            #expect(try await client.send(.delete, "/v1/reviews/\(reviewID)/like", token: bob.token).status == .ok)
            #expect(
                try await client.send(.put, "/v1/reviews/\(reviewID)/bookmark", token: bob.token).status
                    == .tooManyRequests)
            #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: bob.token).status == .ok)
            #expect(
                try await client.send(.delete, "/v1/users/\(alice.id)/follow", token: bob.token).status
                    == .tooManyRequests)

            // The next window admits them again.
            clock.advance(milliseconds: 50_000)
            let later = try await client.send(
                .post, "/v1/reviews/\(reviewID)/comments", json: ["text": "a minute later"], token: alice.token)
            #expect(later.status == .created)
            #expect(try await client.send(.put, "/v1/reviews/\(reviewID)/bookmark", token: bob.token).status == .ok)
        }
    }

    @Test("the LookForRealBurger routes count the same writes", arguments: StoreEngine.available)
    func lfrb(engine: StoreEngine) async throws {
        let environment = try await LFRBScreenTests.environment(engine, places: 1)
        environment.configuration.writeLimits[.reaction] = WriteLimit(count: 1, seconds: 3600)
        try await environment.withClient { client in
            let author = try await client.member("author")
            let review = try json(try await client.postReview(place: 1, token: author.token))
            let id = try #require(review["id"] as? Int)
            let app = LFRBApp(client)
            try await app.joinAndLogIn("liker")
            #expect(try await app.call(.post, "v1/posts/review-\(id)/like", json: ["like_status": true]).status == .ok)
            let limited = try await app.call(.post, "v1/posts/review-\(id)/like-2", json: ["like_status": true])
            #expect(limited.status.code == 429 && limited.headers[.retryAfter] != nil)
        }
    }
}
