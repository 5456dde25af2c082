import BurgerMap
import BurgerMapCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Notifications: the grouped list, the unread count, what is never sent", .timeLimit(.minutes(10)))
struct NotificationListTests {
    @Test(
        "likes and comments on a review group until read, follows by day; own actions, blocked users, unlikes and hidden content leave nothing",
        arguments: StoreEngine.available)
    func groupsAndRetractions(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            let dave = try await client.member("dave")
            let place = try await client.addPlace("Notify Burger", token: alice.token)
            let review = try await client.reviewID(place: place, text: "Crisp edges, soft bun.", token: alice.token)

            for member in [bob, carol, alice] {
                #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: member.token).status == .ok)
            }
            try await environment.settleNotifications()
            var (items, page) = try await client.notifications(token: alice.token)
            #expect(items == [SeenNotification("like", 2, ["carol", "bob"])])
            #expect((page["unread_count"] as? NSNumber)?.intValue == 1)
            let like = try #require((page["items"] as? [[String: Any]])?.first)
            #expect(like["group_key"] as? String == "like-review-\(review)")
            let likedReview = try #require(like["review"] as? [String: Any])
            #expect((likedReview["id"] as? NSNumber)?.int64Value == review)
            #expect((likedReview["place_id"] as? NSNumber)?.int64Value == place)
            #expect(likedReview["excerpt"] as? String == "Crisp edges, soft bun.")
            #expect(like["comment"] is NSNull)

            let comment = try await client.commentID(review: review, text: "Agreed, the fries too", token: bob.token)
            _ = try await client.commentID(review: review, text: "My own note", token: alice.token)
            #expect(try await client.send(.delete, "/v1/reviews/\(review)/like", token: carol.token).status == .ok)
            #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: bob.token).status == .ok)
            #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: dave.token).status == .ok)
            try await environment.settleNotifications()
            (items, page) = try await client.notifications(token: alice.token)
            #expect(
                items == [
                    SeenNotification("follow", 2, ["dave", "bob"]), SeenNotification("comment", 1, ["bob"]),
                    SeenNotification("like", 1, ["bob"]),
                ])
            let commentItem = try #require((page["items"] as? [[String: Any]])?[1])
            let shownComment = try #require(commentItem["comment"] as? [String: Any])
            #expect((shownComment["id"] as? NSNumber)?.int64Value == comment)
            #expect(shownComment["excerpt"] as? String == "Agreed, the fries too")
            let followKey = try #require((page["items"] as? [[String: Any]])?[0]["group_key"] as? String)
            #expect(followKey == "follow-" + NotificationRules.utcDay(.now()))

            // A block takes what each did in the other's lists away; so do unfollows and deleted comments.
            #expect(try await client.send(.put, "/v1/users/\(dave.id)/block", token: alice.token).status == .ok)
            #expect(try await client.send(.delete, "/v1/comments/\(comment)", token: bob.token).status == .noContent)
            try await environment.settleNotifications()
            (items, _) = try await client.notifications(token: alice.token)
            #expect(items == [SeenNotification("follow", 1, ["bob"]), SeenNotification("like", 1, ["bob"])])

            // Read groups take no more entries: the next like opens a new group at the top.
            let likeID = try #require(
                ((try await client.notifications(token: alice.token)).1["items"] as? [[String: Any]])?[1]["id"]
                    as? NSNumber)
            #expect(
                try await client.send(.post, "/v1/notifications/read", json: ["up_to_id": likeID], token: alice.token)
                    .status == .noContent)
            #expect(
                try json(try await client.send(.get, "/v1/notifications/unread_count", token: alice.token))["count"]
                    as? NSNumber == 1)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: carol.token).status == .ok)
            try await environment.settleNotifications()
            (items, _) = try await client.notifications(token: alice.token)
            #expect(
                items == [
                    SeenNotification("like", 1, ["carol"]), SeenNotification("follow", 1, ["bob"]),
                    SeenNotification("like", 1, ["bob"], read: true),
                ])
            (items, _) = try await client.notifications(token: alice.token, query: "?unread_only=true&types=like")
            #expect(items == [SeenNotification("like", 1, ["carol"])])

            // Hidden content leaves the lists; its owner is told of the decision.
            let moderator = try await client.member("mod")
            #expect(
                try await environment.stores.moderation.setModerator(
                    email: "mod@example.com", granted: true, at: .now()) == .done)
            #expect(
                try await client.send(.put, "/v1/moderation/reviews/\(review)/hidden", token: moderator.token).status
                    == .ok)
            try await environment.settleNotifications()
            (items, page) = try await client.notifications(token: alice.token)
            #expect(items == [SeenNotification("moderation", 1, []), SeenNotification("follow", 1, ["bob"])])
            #expect((page["items"] as? [[String: Any]])?.first?["decision"] as? String == "hidden")

            // A deleted account leaves no actor entry behind.
            #expect(
                try await client.send(
                    .delete, "/v1/users/me", json: ["password": "correct horse battery"], token: bob.token
                ).status == .noContent)
            try await environment.settleNotifications()
            (items, _) = try await client.notifications(token: alice.token)
            #expect(items == [SeenNotification("moderation", 1, [])])
        }
    }

    @Test(
        "pages follow the list without repeats; a group that changes moves to the top", arguments: StoreEngine.available
    )
    func paging(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Paging Burger", token: alice.token)
            var reviews: [Int64] = []
            for index in 0..<5 {
                let review = try await client.reviewID(place: place, text: "Review \(index)", token: alice.token)
                reviews.append(review)
                #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: bob.token).status == .ok)
            }
            try await environment.settleNotifications()
            let first = try json(try await client.send(.get, "/v1/notifications?limit=2", token: alice.token))
            let firstKeys = (first["items"] as? [[String: Any]] ?? []).compactMap { $0["group_key"] as? String }
            #expect(firstKeys == ["like-review-\(reviews[4])", "like-review-\(reviews[3])"])
            let cursor = try #require(first["next_cursor"] as? String)
            // The oldest group changes while the client reads on: it moves to the top, where the next
            // refresh finds it; the pages below go on without it, with no item twice.
            let carol = try await client.member("carol")
            #expect(try await client.send(.put, "/v1/reviews/\(reviews[0])/like", token: carol.token).status == .ok)
            try await environment.settleNotifications()
            let second = try json(
                try await client.send(.get, "/v1/notifications?limit=2&cursor=\(cursor)", token: alice.token))
            let secondKeys = (second["items"] as? [[String: Any]] ?? []).compactMap { $0["group_key"] as? String }
            #expect(secondKeys == ["like-review-\(reviews[2])", "like-review-\(reviews[1])"])
            #expect(second["next_cursor"] is NSNull)
            let refreshed = try await client.notifications(token: alice.token, query: "?limit=1")
            #expect(refreshed.0 == [SeenNotification("like", 2, ["carol", "bob"])])

            // A cursor belongs to its list: another filter refuses it.
            #expect(
                try await client.send(.get, "/v1/notifications?types=follow&cursor=\(cursor)", token: alice.token)
                    .status == .badRequest)
        }
    }

    @Test("bad requests get problem documents; the list needs a signed-in user", arguments: StoreEngine.available)
    func badRequests(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            #expect(try await client.send(.get, "/v1/notifications").status == .unauthorized)
            let unknownType = try await client.send(.get, "/v1/notifications?types=like,poke", token: alice.token)
            #expect(unknownType.status == .badRequest)
            #expect(
                (try json(unknownType)["errors"] as? [[String: Any]])?.first?["field"] as? String == "types")
            for body: [String: Any] in [[:], ["up_to_id": 3, "group_keys": ["a"]], ["up_to_id": -1]] {
                #expect(
                    try await client.send(.post, "/v1/notifications/read", json: body, token: alice.token).status
                        == .badRequest)
            }
            // Each wrong body names what is wrong, in words with every placeholder filled.
            func problem(_ body: String) async throws -> (
                code: String?, fields: [String], codes: [String], messages: [String]
            ) {
                let response = try await client.execute(
                    uri: "/v1/notifications/read", method: .post,
                    headers: [.contentType: "application/json", .authorization: "Bearer \(alice.token)"],
                    body: ByteBuffer(string: body))
                #expect(response.status == .badRequest, "\(body)")
                let errors = try json(response)["errors"] as? [[String: Any]] ?? []
                return (
                    try problemCode(response), errors.compactMap { $0["field"] as? String },
                    errors.compactMap { $0["code"] as? String }, errors.compactMap { $0["message"] as? String }
                )
            }
            let negative = try await problem(#"{"up_to_id": -1}"#)
            #expect(negative.codes == ["out_of_range"])
            #expect(negative.messages == ["up_to_id must be 0 to 9223372036854775807"])
            #expect(try await problem(#"{"up_to_id": 9.5}"#).codes == ["not_an_integer"])
            #expect(try await problem(#"{"up_to_id": 99999999999999999999}"#).codes == ["out_of_range"])
            let notArray = try await problem(#"{"group_keys": "x"}"#)
            #expect(notArray.codes == ["wrong_type"])
            #expect(notArray.messages.first?.contains("an array") == true)
            let both = try await problem(#"{"up_to_id": 3, "group_keys": ["a"]}"#)
            #expect(both.fields == ["up_to_id", "group_keys"] && both.codes == ["one_of", "one_of"])
            #expect(try await problem("{}").codes == ["required"])
            // 200 characters of Hangul are 600 bytes, and allowed; 201 are not.
            #expect(
                try await client.send(
                    .post, "/v1/notifications/read", json: ["group_keys": [String(repeating: "버", count: 200)]],
                    token: alice.token
                ).status == .noContent)
            #expect(
                try await problem("{\"group_keys\": [\"" + String(repeating: "버", count: 201) + "\"]}").codes
                    == ["length"])
            let emptyTypes = try await client.send(.get, "/v1/notifications?types=", token: alice.token)
            #expect((try json(emptyTypes)["errors"] as? [[String: Any]])?.count == 1)
            let tooMany = (0...NotificationLimits.groupKeysPerRequest).map { "key-\($0)" }
            #expect(
                try await client.send(
                    .post, "/v1/notifications/read", json: ["group_keys": tooMany], token: alice.token
                )
                .status == .badRequest)
            #expect(
                try await client.send(.post, "/v1/notifications/read", json: ["group_keys": ["x"]], token: alice.token)
                    .status == .noContent)
        }
    }

    @Test(
        "settings: every type on but reviews by people followed; PUT changes what it names",
        arguments: StoreEngine.available)
    func settings(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let defaults = try json(try await client.send(.get, "/v1/me/notification-settings", token: alice.token))
            let list = try #require(defaults["list"] as? [String: Bool])
            #expect(
                list == [
                    "like": true, "comment": true, "follow": true, "review_by_followed": false, "moderation": true,
                ])
            #expect(defaults["push"] as? [String: Bool] == list)
            let changed = try await client.send(
                .put, "/v1/me/notification-settings",
                json: ["list": ["like": false, "review_by_followed": true], "push": ["follow": false]],
                token: alice.token)
            #expect(changed.status == .ok)
            let now = try json(changed)
            #expect(
                now["list"] as? [String: Bool]
                    == ["like": false, "comment": true, "follow": true, "review_by_followed": true, "moderation": true])
            #expect((now["push"] as? [String: Bool])?["follow"] == false)
            for body: [String: Any] in [["list": ["poke": true]], ["list": ["like": 1]], ["lists": [:]]] {
                #expect(
                    try await client.send(.put, "/v1/me/notification-settings", json: body, token: alice.token).status
                        == .badRequest)
            }

            // Likes are off in Alice's list; reviews by people she follows are on.
            let place = try await client.addPlace("Settings Burger", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: bob.token).status == .ok)
            #expect(try await client.send(.put, "/v1/users/\(bob.id)/follow", token: alice.token).status == .ok)
            let bobsReview = try await client.reviewID(place: place, text: "Bob's take", token: bob.token)
            try await environment.settleNotifications()
            let (items, page) = try await client.notifications(token: alice.token)
            #expect(items == [SeenNotification("review_by_followed", 1, ["bob"])])
            let item = try #require((page["items"] as? [[String: Any]])?.first)
            #expect(((item["review"] as? [String: Any])?["id"] as? NSNumber)?.int64Value == bobsReview)
            // Bob never asked for reviews of people he follows.
            #expect(try await client.notifications(token: bob.token).0 == [SeenNotification("follow", 1, ["alice"])])
        }
    }
}
