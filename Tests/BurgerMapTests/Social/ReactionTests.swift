import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Likes and bookmarks")
struct ReactionTests {
    @Test(
        "PUT and DELETE are idempotent, counts are exact, and viewer fields are the viewer's own",
        arguments: StoreEngine.available)
    func toggles(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)

            for _ in 0..<2 {
                let liked = try json(try await client.send(.put, "/v1/reviews/\(review)/like", token: bob.token))
                #expect(liked["liked"] as? Bool == true)
                #expect(liked["like_count"] as? Int == 1)
            }
            let bookmarked = try json(try await client.send(.put, "/v1/reviews/\(review)/bookmark", token: bob.token))
            #expect(bookmarked["bookmarked"] as? Bool == true)
            #expect(bookmarked["bookmark_count"] as? Int == 1)

            let asBob = try json(try await client.send(.get, "/v1/reviews/\(review)", token: bob.token))
            #expect(asBob["liked_by_me"] as? Bool == true)
            #expect(asBob["bookmarked_by_me"] as? Bool == true)
            #expect(asBob["like_count"] as? Int == 1)
            #expect(asBob["bookmark_count"] as? Int == 1)
            let asAlice = try json(try await client.send(.get, "/v1/reviews/\(review)", token: alice.token))
            #expect(asAlice["liked_by_me"] as? Bool == false)
            let anonymous = try json(try await client.send(.get, "/v1/reviews"))
            let listed = try #require((anonymous["items"] as? [[String: Any]])?.first)
            #expect(listed["liked_by_me"] as? Bool == false)
            #expect(listed["like_count"] as? Int == 1)
            let bobsList = try json(try await client.send(.get, "/v1/places/\(place)/reviews", token: bob.token))
            #expect((bobsList["items"] as? [[String: Any]])?.first?["bookmarked_by_me"] as? Bool == true)

            for _ in 0..<2 {
                let unliked = try json(try await client.send(.delete, "/v1/reviews/\(review)/like", token: bob.token))
                #expect(unliked["liked"] as? Bool == false)
                #expect(unliked["like_count"] as? Int == 0)
            }
            #expect(try await environment.rowCount("review_likes") == 0)
            #expect(try await environment.rowCount("review_bookmarks") == 1)
        }
    }

    @Test(
        "50 users liking at once end at 50; one user liking twice at once ends at 1", arguments: StoreEngine.available)
    func concurrentLikes(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let author = try await client.member("author")
            let place = try await client.addPlace("Patty Lab", token: author.token)
            let review = try await client.reviewID(place: place, token: author.token)
            var members: [String] = []
            for index in 0..<50 { members.append(try await client.member("liker\(index)").token) }

            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for token in members {
                    group.addTask {
                        let response = try await client.send(.put, "/v1/reviews/\(review)/like", token: token)
                        #expect(response.status == .ok)
                        return try #require(try json(response)["like_count"] as? Int)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // Each answer is the exact count after that like: all of 1…50, each once.
            #expect(answers.sorted() == Array(1...50))
            var body = try json(try await client.send(.get, "/v1/reviews/\(review)"))
            #expect(body["like_count"] as? Int == 50)

            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        let response = try await client.send(
                            .put, "/v1/reviews/\(review)/bookmark", token: author.token)
                        #expect(try json(response)["bookmark_count"] as? Int == 1)
                    }
                }
                try await group.waitForAll()
            }
            // Half unlike while the other half like again: the count is what stays.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, token) in members.enumerated() {
                    group.addTask {
                        let method: HTTPRequest.Method = index.isMultiple(of: 2) ? .delete : .put
                        let response = try await client.send(method, "/v1/reviews/\(review)/like", token: token)
                        #expect(response.status == .ok)
                    }
                }
                try await group.waitForAll()
            }
            body = try json(try await client.send(.get, "/v1/reviews/\(review)"))
            #expect(body["like_count"] as? Int == 25)
            #expect(body["bookmark_count"] as? Int == 1)
            #expect(try await environment.rowCount("review_likes") == 25)
        }
    }

    @Test(
        "my likes and bookmarks: most recent first, keyset-paged, only mine, deleted reviews gone",
        arguments: StoreEngine.available)
    func personalLists(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            var reviews: [Int64] = []
            for index in 0..<5 {
                reviews.append(try await client.reviewID(place: place, text: "r\(index)", token: alice.token))
            }
            // Bob likes in the order 3, 0, 4, 1: newest like first is 1, 4, 0, 3.
            for index in [3, 0, 4, 1] {
                #expect(
                    try await client.send(.put, "/v1/reviews/\(reviews[index])/like", token: bob.token).status == .ok)
                clock.advance(milliseconds: 3)
            }
            #expect(try await client.send(.put, "/v1/reviews/\(reviews[2])/like", token: alice.token).status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(reviews[2])/bookmark", token: bob.token).status == .ok)

            let likes = try await client.walk("/v1/me/likes", limit: 3, token: bob.token)
            #expect(ids(likes) == [1, 4, 0, 3].map { reviews[$0] })
            #expect(likes.allSatisfy { $0["liked_by_me"] as? Bool == true })
            #expect(ids(try await client.walk("/v1/me/bookmarks", limit: 2, token: bob.token)) == [reviews[2]])
            #expect(ids(try await client.walk("/v1/me/likes", limit: 20, token: alice.token)) == [reviews[2]])

            // A cursor of Bob's likes is not Alice's, nor Bob's bookmarks.
            let first = try json(try await client.send(.get, "/v1/me/likes?limit=1", token: bob.token))
            let cursor = try #require(first["next_cursor"] as? String)
            for (path, token) in [
                ("/v1/me/likes", alice.token), ("/v1/me/bookmarks", bob.token), ("/v1/feed", bob.token),
            ] {
                let foreign = try await client.send(.get, "\(path)?cursor=\(cursor)", token: token)
                #expect(foreign.status == .badRequest)
                #expect(try problemCode(foreign) == "invalid_cursor")
            }
            #expect(try await client.send(.get, "/v1/me/likes").status == .unauthorized)

            #expect(
                try await client.send(.delete, "/v1/reviews/\(reviews[4])", token: alice.token).status == .noContent)
            #expect(
                ids(try await client.walk("/v1/me/likes", limit: 2, token: bob.token)) == [1, 0, 3].map { reviews[$0] })
        }
    }

    @Test(
        "unknown, malformed and deleted reviews are 404; a deleted review takes its likes, bookmarks and comments",
        arguments: StoreEngine.available)
    func missingReviews(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: bob.token).status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/bookmark", token: bob.token).status == .ok)
            let comment = try await client.send(
                .post, "/v1/reviews/\(review)/comments", json: ["text": "yes"], token: bob.token)
            #expect(comment.status == .created)
            #expect(try await client.send(.delete, "/v1/reviews/\(review)", token: alice.token).status == .noContent)
            for table in ["review_likes", "review_bookmarks", "comments"] {
                #expect(try await environment.rowCount(table) == 0, "\(table)")
            }
            for id in ["\(review)", "999999", "abc", "-1", "0"] {
                for method: HTTPRequest.Method in [.put, .delete] {
                    for reaction in ["like", "bookmark"] {
                        let response = try await client.send(method, "/v1/reviews/\(id)/\(reaction)", token: bob.token)
                        #expect(response.status == .notFound, "\(method) \(id) \(reaction)")
                        #expect(try problemCode(response) == "not_found")
                    }
                }
            }
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like").status == .unauthorized)
        }
    }
}
