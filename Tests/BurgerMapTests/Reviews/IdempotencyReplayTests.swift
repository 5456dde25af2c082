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
            let retry = try await client.postReview(place: place, text: "again", token: alice.token, headers: key)
            #expect(retry.status == .created)
            #expect(retry.headers[.location] == "/v1/reviews/\(id)")
            #expect(Array(buffer: retry.body) == Array(buffer: first.body))
            #expect(try json(retry)["like_count"] as? Int == 0)

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
}
