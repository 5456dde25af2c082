import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Idempotency-Key replays: the kept answer byte for byte, or the key's review when none was kept")
struct IdempotencyReplayTests {
    @Test(
        "a replay answers the first answer even after the review changed; a claim whose answer was never kept answers its review as it is",
        arguments: StoreEngine.available)
    func replays(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Replay Burger", token: alice.token)
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "k-35"]
            let first = try await client.postReview(place: place, token: alice.token, headers: key)
            #expect(first.status == .created)
            let id = try #require((try json(first)["id"] as? NSNumber)?.int64Value)
            #expect(try await client.send(.put, "/v1/reviews/\(id)/like", token: bob.token).status == .ok)
            let retry = try await client.postReview(place: place, token: alice.token, headers: key)
            #expect(retry.status == .created)
            #expect(retry.headers[.location] == "/v1/reviews/\(id)")
            #expect(Array(buffer: retry.body) == Array(buffer: first.body))
            #expect(try json(retry)["like_count"] as? Int == 0)
            // Only the replay says it is one.
            let replayed = HTTPField.Name("Idempotent-Replayed")!
            #expect(retry.headers[replayed] == "true" && first.headers[replayed] == nil)
            // The same key for another request (another text, another rating, a photo more, another
            // place) is refused, and stores nothing (the IETF draft's rule).
            let second = try await client.addPlace("Other Burger", token: alice.token)
            for (changed, other) in [
                ("text", try await client.postReview(place: place, text: "again", token: alice.token, headers: key)),
                ("rating", try await client.postReview(place: place, rating: "1", token: alice.token, headers: key)),
                (
                    "photo",
                    try await client.postReview(
                        place: place, photos: [TestImages.jpeg()], token: alice.token, headers: key)
                ),
                ("place", try await client.postReview(place: second, token: alice.token, headers: key)),
            ] {
                #expect(other.status == .unprocessableContent, "\(changed)")
                #expect(try problemCode(other) == "idempotency_key_reused", "\(changed)")
                #expect(other.headers[replayed] == nil, "\(changed)")
            }
            #expect(try await environment.reviewRowCounts().0 == 1)

            // A request that committed its review but never kept its answer (killed in between).
            let lost = IdempotencyKey(userID: alice.id, key: "k-lost")
            guard
                case .created(let review) = try await environment.stores.reviews.createReview(
                    ReviewDraft(placeID: place, authorID: alice.id, rating: 4, text: "committed"), photos: [],
                    idempotency: lost, at: .now(), beforeCommit: { _ in })
            else {
                Issue.record("the review must be created")
                return
            }
            let recovered = try await client.postReview(
                place: place, text: "retried", token: alice.token,
                headers: [HTTPField.Name("Idempotency-Key")!: "k-lost"])
            #expect(recovered.status == .created)
            #expect(recovered.headers[.location] == "/v1/reviews/\(review.id)")
            #expect(try json(recovered)["text"] as? String == "committed")
            // From then on that answer is kept.
            let kept = try #require(try await environment.stores.idempotency.keptAnswer(lost, at: .now()))
            #expect(kept.status == 201 && kept.body == Array(buffer: recovered.body))
            #expect(try await environment.reviewRowCounts().0 == 2)
        }
    }

    @Test("a key whose first request still runs on this instance is 409 with Retry-After; free once it ends")
    func running() async throws {
        let requests = IdempotentRequests()
        let key = IdempotencyKey(userID: 7, key: "k", fingerprint: "a")
        let answer = try await requests.run(key) {
            do {
                _ = try await requests.run(IdempotencyKey(userID: 7, key: "k", fingerprint: "b")) { 1 }
                Issue.record("a second run of a running key must be refused")
            } catch let problem as Problem {
                #expect(problem.code == .conflict && problem.headers[.retryAfter] == "1")
            }
            // Another user's key of the same text is another key.
            return try await requests.run(IdempotencyKey(userID: 8, key: "k")) { 2 }
        }
        #expect(answer == 2)
        #expect(try await requests.run(key) { 3 } == 3)
        #expect(try await requests.run(nil) { 4 } == 4)
    }
}
