import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Comments")
struct CommentTests {
    @Test(
        "comments list oldest first, keyset-paged, and keep the review's comment_count exact",
        arguments: StoreEngine.available)
    func listAndCount(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)
            var created: [Int64] = []
            for index in 0..<5 {
                let response = try await client.send(
                    .post, "/v1/reviews/\(review)/comments", json: ["text": "comment \(index)\nline two"],
                    token: index.isMultiple(of: 2) ? bob.token : alice.token)
                #expect(response.status == .created)
                let body = try json(response)
                #expect(body["review_id"] as? Int64 == review)
                #expect(body["text"] as? String == "comment \(index)\nline two")
                #expect(
                    (body["author"] as? [String: Any])?["nickname"] as? String
                        == (index.isMultiple(of: 2) ? "bob" : "alice"))
                created.append(try #require((body["id"] as? NSNumber)?.int64Value))
            }
            let listed = try await client.walk("/v1/reviews/\(review)/comments", limit: 2)
            #expect(ids(listed) == created)
            #expect(try json(try await client.send(.get, "/v1/reviews/\(review)"))["comment_count"] as? Int == 5)

            #expect(try await client.send(.delete, "/v1/comments/\(created[0])", token: bob.token).status == .noContent)
            #expect(try json(try await client.send(.get, "/v1/reviews/\(review)"))["comment_count"] as? Int == 4)
            #expect(
                ids(try await client.walk("/v1/reviews/\(review)/comments", limit: 10)) == Array(created.dropFirst()))

            // A cursor of this review's comments is refused by another review's.
            let other = try await client.reviewID(place: place, token: bob.token)
            let page = try json(try await client.send(.get, "/v1/reviews/\(review)/comments?limit=1"))
            let cursor = try #require(page["next_cursor"] as? String)
            let foreign = try await client.send(.get, "/v1/reviews/\(other)/comments?cursor=\(cursor)")
            #expect(try problemCode(foreign) == "invalid_cursor")
            let empty = try json(try await client.send(.get, "/v1/reviews/\(other)/comments"))
            #expect((empty["items"] as? [Any])?.isEmpty == true)
            #expect(empty["next_cursor"] is NSNull)
            #expect(try await client.send(.get, "/v1/reviews/999999/comments").status == .notFound)
        }
    }

    @Test(
        "the author edits; the author or the review's author deletes; anyone else is 403",
        arguments: StoreEngine.available)
    func authorization(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)
            func comment(_ token: String) async throws -> Int64 {
                let response = try await client.send(
                    .post, "/v1/reviews/\(review)/comments", json: ["text": "hello"], token: token)
                return try #require((try json(response)["id"] as? NSNumber)?.int64Value)
            }
            let bobs = try await comment(bob.token)

            for token in [alice.token, carol.token] {
                let edit = try await client.send(
                    .patch, "/v1/comments/\(bobs)", json: ["text": "changed"], token: token)
                #expect(edit.status == .forbidden)
                #expect(try problemCode(edit) == "forbidden")
            }
            let carolDelete = try await client.send(.delete, "/v1/comments/\(bobs)", token: carol.token)
            #expect(carolDelete.status == .forbidden)
            let edited = try await client.send(
                .patch, "/v1/comments/\(bobs)", json: ["text": "changed"], token: bob.token)
            #expect(edited.status == .ok)
            #expect(try json(edited)["text"] as? String == "changed")
            let listed = try json(try await client.send(.get, "/v1/reviews/\(review)/comments"))
            #expect((listed["items"] as? [[String: Any]])?.map { $0["text"] as? String } == ["changed"])

            // The review's author may remove a comment on their review; its author may too.
            #expect(try await client.send(.delete, "/v1/comments/\(bobs)", token: alice.token).status == .noContent)
            let carols = try await comment(carol.token)
            #expect(try await client.send(.delete, "/v1/comments/\(carols)", token: carol.token).status == .noContent)
            #expect(try await environment.rowCount("comments") == 0)
            for method: HTTPRequest.Method in [.patch, .delete] {
                let gone = try await client.send(method, "/v1/comments/\(bobs)", json: ["text": "x"], token: bob.token)
                #expect(gone.status == .notFound)
                #expect(
                    try await client.send(method, "/v1/comments/\(bobs)", json: ["text": "x"]).status == .unauthorized)
            }
        }
    }

    @Test(
        "empty, blank, over-long, missing or mistyped text is 400; a missing review is 404; nothing is stored",
        arguments: StoreEngine.available)
    func badInput(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)
            let bodies: [[String: Any]] = [
                ["text": ""], ["text": "  \n "], ["text": String(repeating: "x", count: 1001)], [:], ["text": 5],
                ["text": "bell\u{7}"],
            ]
            for body in bodies {
                let response = try await client.send(
                    .post, "/v1/reviews/\(review)/comments", json: body, token: alice.token)
                #expect(response.status == .badRequest, "\(body)")
                #expect(try problemCode(response) == "validation_failed")
                #expect((try json(response)["errors"] as? [[String: Any]])?.first?["field"] as? String == "text")
            }
            // Lengths count Unicode code points, as the schema does: 142 family emoji of seven code
            // points each and six letters are exactly 1000; one more letter is too long.
            let longest = String(repeating: "👨‍👩‍👧‍👦", count: 142) + "xxxxxx"
            let overLimit = longest + "x"
            let refused = try await client.send(
                .post, "/v1/reviews/\(review)/comments", json: ["text": overLimit], token: alice.token)
            #expect(refused.status == .badRequest)
            let refusedError = (try json(refused)["errors"] as? [[String: Any]])?.first
            #expect(refusedError?["code"] as? String == "too_long")
            #expect((refusedError?["message"] as? String)?.contains("1000") == true)
            let accepted = try await client.send(
                .post, "/v1/reviews/\(review)/comments", json: ["text": longest], token: alice.token)
            #expect(accepted.status == .created)
            let missing = try await client.send(
                .post, "/v1/reviews/424242/comments", json: ["text": "hi"], token: alice.token)
            #expect(missing.status == .notFound)
            let id = try #require((try json(accepted)["id"] as? NSNumber)?.int64Value)
            let blank = try await client.send(.patch, "/v1/comments/\(id)", json: ["text": " "], token: alice.token)
            #expect(blank.status == .badRequest)
            #expect(try await environment.rowCount("comments") == 1)
        }
    }
}
