import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Two users who harass each other, among others")
struct HarassmentScenarioTests {
    /// Rows whose kept count differs from the count recomputed from scratch (0 when all agree).
    static func countMismatches(_ environment: TestEnvironment) async throws -> [String: Int64] {
        let checks = [
            "like_count":
                "SELECT count(*) FROM reviews AS r WHERE like_count <> (SELECT count(*) FROM review_likes WHERE review_id = r.id)",
            "bookmark_count":
                "SELECT count(*) FROM reviews AS r WHERE bookmark_count <> (SELECT count(*) FROM review_bookmarks WHERE review_id = r.id)",
            "comment_count":
                "SELECT count(*) FROM reviews AS r WHERE comment_count <> (SELECT count(*) FROM comments WHERE review_id = r.id)",
            "follower_count":
                "SELECT count(*) FROM users AS u WHERE follower_count <> (SELECT count(*) FROM follows WHERE followee_id = u.id)",
            "following_count":
                "SELECT count(*) FROM users AS u WHERE following_count <> (SELECT count(*) FROM follows WHERE follower_id = u.id)",
            "review_count":
                "SELECT count(*) FROM places AS p WHERE review_count <> (SELECT count(*) FROM reviews WHERE place_id = p.id)",
            "rating_sum":
                "SELECT count(*) FROM places AS p WHERE rating_sum <> (SELECT COALESCE(sum(rating), 0) FROM reviews WHERE place_id = p.id)",
        ]
        var mismatches: [String: Int64] = [:]
        for (name, sql) in checks {
            let count = try await environment.int(sql) ?? -1
            if count != 0 { mismatches[name] = count }
        }
        return mismatches
    }

    @Test(
        "they block, report and delete their accounts while others like, comment and page: counts stay exact, no file of theirs is left, their token, cursor and refresh token are refused",
        arguments: StoreEngine.available)
    func harassment(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let aliceTokens = try tokens(try await client.register(email: "alice@example.com", nickname: "alice"))
            let alice = try #require(
                (try json(try await client.send(.get, "/v1/users/me", token: aliceTokens.access))["id"] as? NSNumber)?
                    .int64Value)
            let bobTokens = try tokens(try await client.register(email: "bob@example.com", nickname: "bob"))
            let bob = try #require(
                (try json(try await client.send(.get, "/v1/users/me", token: bobTokens.access))["id"] as? NSNumber)?
                    .int64Value)
            let carol = try await client.member("carol")
            let dave = try await client.member("dave")
            let place = try await client.addPlace("Quarrel Burgers", token: carol.token)
            func review(_ text: String, _ rating: String, _ token: String) async throws -> (id: Int, photos: [Int64]) {
                let body = try json(
                    try await client.postReview(
                        place: place, rating: rating, text: text, photos: [TestImages.jpeg()], token: token))
                let photos = try #require(body["photos"] as? [[String: Any]]).compactMap {
                    ($0["id"] as? NSNumber)?.int64Value
                }
                return (try #require(body["id"] as? Int), photos)
            }
            let alices = try await review("alice is right", "5", aliceTokens.access)
            let bobs = try await review("alice is wrong", "1", bobTokens.access)
            let carols = try await review("both loud", "4", carol.token)
            // They insult each other; the others like, bookmark, comment and follow everyone.
            for (path, text, token) in [
                ("/v1/reviews/\(bobs.id)/comments", "liar", aliceTokens.access),
                ("/v1/reviews/\(alices.id)/comments", "troll", bobTokens.access),
                ("/v1/reviews/\(carols.id)/comments", "carol agrees with me", bobTokens.access),
                ("/v1/reviews/\(alices.id)/comments", "calm down", carol.token),
                ("/v1/reviews/\(bobs.id)/comments", "please stop", dave.token),
            ] {
                #expect(try await client.send(.post, path, json: ["text": text], token: token).status == .created)
            }
            for token in [carol.token, dave.token] {
                for id in [alices.id, bobs.id, carols.id] {
                    #expect(try await client.send(.put, "/v1/reviews/\(id)/like", token: token).status == .ok)
                }
                #expect(try await client.send(.put, "/v1/reviews/\(bobs.id)/bookmark", token: token).status == .ok)
                for user in [alice, bob] {
                    #expect(try await client.send(.put, "/v1/users/\(user)/follow", token: token).status == .ok)
                }
            }
            #expect(try await client.send(.put, "/v1/users/\(alice)/follow", token: bobTokens.access).status == .ok)
            for id in [carols.id, bobs.id] {
                #expect(try await client.send(.put, "/v1/reviews/\(id)/like", token: bobTokens.access).status == .ok)
            }

            // Alice blocks Bob and reports him; Bob's review is reported by three and hidden.
            #expect(try await client.send(.put, "/v1/users/\(bob)/block", token: aliceTokens.access).status == .ok)
            #expect(
                try await client.send(
                    .post, "/v1/users/\(bob)/report", json: ["reason": "harassment"], token: aliceTokens.access
                ).status == .accepted)
            for token in [aliceTokens.access, carol.token, dave.token] {
                #expect(
                    try await client.send(
                        .post, "/v1/reviews/\(bobs.id)/report", json: ["reason": "harassment"], token: token
                    ).status == .accepted)
            }
            #expect(
                try await client.send(
                    .post, "/v1/reviews/\(alices.id)/report", json: ["reason": "hate"], token: bobTokens.access
                )
                .status == .accepted)
            #expect(
                try await BlockTests.texts(client, "/v1/reviews", token: dave.token) == ["both loud", "alice is right"])

            // Bob holds a cursor of his own list; Carol pages through every review meanwhile.
            let bobLikes = try json(try await client.send(.get, "/v1/me/likes?limit=1", token: bobTokens.access))
            let bobCursor = try #require(bobLikes["next_cursor"] as? String)
            let carolFirst = try json(try await client.send(.get, "/v1/reviews?limit=1", token: carol.token))
            var seen = try #require(carolFirst["items"] as? [[String: Any]]).compactMap { $0["text"] as? String }
            var cursor = carolFirst["next_cursor"] as? String

            let deleted = try await client.send(
                .delete, "/v1/users/me", json: ["password": "correct horse battery"], token: bobTokens.access)
            #expect(deleted.status == .noContent)
            while let next = cursor {
                let page = try json(
                    try await client.send(.get, "/v1/reviews?limit=1&cursor=\(next)", token: carol.token))
                seen += try #require(page["items"] as? [[String: Any]]).compactMap { $0["text"] as? String }
                cursor = page["next_cursor"] as? String
            }
            #expect(seen == ["both loud", "alice is right"])

            // Bob's token, refresh token and cursor are refused.
            #expect(try await client.send(.get, "/v1/users/me", token: bobTokens.access).status == .unauthorized)
            #expect(
                try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": bobTokens.refresh]).status
                    == .unauthorized)
            let reused = try await client.send(.get, "/v1/me/likes?cursor=\(bobCursor)", token: carol.token)
            #expect(reused.status == .badRequest)
            #expect(try problemCode(reused) == "invalid_cursor")
            #expect(try await client.send(.get, "/v1/users/\(bob)/reviews").status == .notFound)

            // Alice leaves too.
            #expect(
                try await client.send(
                    .delete, "/v1/users/me", json: ["password": "correct horse battery"], token: aliceTokens.access
                ).status == .noContent)

            #expect(try await Self.countMismatches(environment) == [:])
            #expect(try await environment.rowCount("reviews") == 1)
            #expect(try await environment.rowCount("comments") == 0)
            #expect(try await environment.rowCount("reports") == 0)
            #expect(try await environment.rowCount("blocks") == 0)
            #expect(try await environment.int("SELECT count(*) FROM follows") == 0)
            let carolsNow = try json(try await client.send(.get, "/v1/reviews/\(carols.id)"))
            #expect(carolsNow["like_count"] as? Int == 2 && carolsNow["comment_count"] as? Int == 0)
            // The data folder keeps Carol's photo and nothing of theirs.
            #expect(try await environment.photoFiles().stored.count == 2)
            for id in alices.photos + bobs.photos {
                for thumbnail in [false, true] {
                    #expect(try await environment.storedImage(photoID: id, thumbnail: thumbnail) == nil)
                }
            }
            for id in carols.photos {
                #expect(try await environment.storedImage(photoID: id, thumbnail: false) != nil)
            }
        }
    }
}
