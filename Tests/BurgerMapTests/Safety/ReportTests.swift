import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Reports, hidden content and the moderators' queue")
struct ReportTests {
    /// Every open report in the moderators' queue, page by page (`limit=2`), as
    /// "reporter → type id (open reports, hidden)".
    static func queue(_ client: any TestClientProtocol, token: String) async throws -> [String] {
        var lines: [String] = []
        var cursor: String?
        repeat {
            let path = "/v1/moderation/reports?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try json(try await client.send(.get, path, token: token))
            for item in try #require(page["items"] as? [[String: Any]]) {
                let reporter = try #require(item["reporter"] as? [String: Any])
                let target = try #require(item["target"] as? [String: Any])
                let hidden = target["hidden"] is NSNull ? "-" : "\(target["hidden"] as? Bool == true)"
                lines.append(
                    "\(reporter["nickname"]!) → \(item["target_type"]!) \(item["target_id"]!) (\(target["open_reports"]!), \(hidden))"
                )
            }
            cursor = page["next_cursor"] as? String
        } while cursor != nil
        return lines
    }

    @Test(
        "reports are one per reporter and object; three reporters hide a review from all but its author until a moderator restores it",
        arguments: StoreEngine.available)
    func reportsHideAndRestore(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            let dave = try await client.member("dave")
            let moderator = try await client.member("mod")
            #expect(
                try await environment.stores.moderation.setModerator(
                    email: "mod@example.com", granted: true, at: .now()) == .done)
            let place = try await client.addPlace("Report Burger", token: carol.token)
            let spam = try #require(
                try json(try await client.postReview(place: place, text: "buy followers", token: alice.token))["id"]
                    as? Int)
            #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: bob.token).status == .ok)

            #expect(try await client.send(.put, "/v1/reviews/\(spam)/like", token: bob.token).status == .ok)
            let first = try await client.send(
                .post, "/v1/reviews/\(spam)/report", json: ["reason": "spam", "text": "an ad"], token: bob.token)
            #expect(first.status == .accepted)
            let filed = try json(first)
            #expect(filed["status"] as? String == "open" && filed["reason"] as? String == "spam")
            #expect(filed["target_type"] as? String == "review" && filed["target_id"] as? Int == spam)
            // Repeating answers the same open report, with its first reason.
            let again = try json(
                try await client.send(
                    .post, "/v1/reviews/\(spam)/report", json: ["reason": "hate"], token: bob.token))
            #expect(again["id"] as? Int == filed["id"] as? Int && again["reason"] as? String == "spam")
            #expect(
                try await client.send(.post, "/v1/reviews/\(spam)/report", json: ["reason": "spam"], token: carol.token)
                    .status == .accepted)
            #expect(try await BlockTests.texts(client, "/v1/reviews", token: nil) == ["buy followers"])

            // The third distinct reporter hides it: from everyone but alice, in every list and by id.
            #expect(
                try await client.send(
                    .post, "/v1/reviews/\(spam)/report", json: ["reason": "other"], token: dave.token
                ).status == .accepted)
            for token in [nil, bob.token, moderator.token] {
                #expect(try await client.send(.get, "/v1/reviews/\(spam)", token: token).status == .notFound)
                #expect(try await BlockTests.texts(client, "/v1/reviews", token: token).isEmpty)
                #expect(try await BlockTests.texts(client, "/v1/places/\(place)/reviews", token: token).isEmpty)
                #expect(try await BlockTests.texts(client, "/v1/users/\(alice.id)/reviews", token: token).isEmpty)
            }
            #expect(try await BlockTests.texts(client, "/v1/feed", token: bob.token).isEmpty)
            #expect(try await client.send(.get, "/v1/reviews/\(spam)", token: alice.token).status == .ok)
            #expect(try await BlockTests.texts(client, "/v1/feed", token: alice.token) == ["buy followers"])
            #expect(
                try await BlockTests.texts(client, "/v1/places/\(place)/reviews", token: alice.token) == [
                    "buy followers"
                ])
            // Nor can others read its comments, like, bookmark or comment on it; Bob takes his like back.
            #expect(try await client.send(.get, "/v1/reviews/\(spam)/comments", token: bob.token).status == .notFound)
            #expect(try await client.send(.get, "/v1/reviews/\(spam)/comments", token: alice.token).status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(spam)/like", token: carol.token).status == .notFound)
            #expect(try await client.send(.put, "/v1/reviews/\(spam)/bookmark", token: carol.token).status == .notFound)
            #expect(
                try await client.send(.post, "/v1/reviews/\(spam)/comments", json: ["text": "hm"], token: carol.token)
                    .status == .notFound)
            #expect(try await client.send(.delete, "/v1/reviews/\(spam)/like", token: bob.token).status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(spam)/like", token: alice.token).status == .ok)
            // Counts stay those of every review, as with blocks.
            let placeJSON = try json(try await client.send(.get, "/v1/places/\(place)"))
            #expect(placeJSON["review_count"] as? Int == 1)

            // The queue: oldest first, with what the target says and how many report it.
            #expect(
                try await client.send(.get, "/v1/moderation/reports", token: bob.token).status == .forbidden)
            #expect(
                try await client.send(
                    .post, "/v1/users/\(dave.id)/report", json: ["reason": "harassment"], token: carol.token
                )
                .status == .accepted)
            #expect(
                try await Self.queue(client, token: moderator.token) == [
                    "bob → review \(spam) (3, true)", "carol → review \(spam) (3, true)",
                    "dave → review \(spam) (3, true)", "carol → user \(dave.id) (1, -)",
                ])
            let page = try json(try await client.send(.get, "/v1/moderation/reports?limit=1", token: moderator.token))
            let oldest = try #require((page["items"] as? [[String: Any]])?.first)
            #expect((oldest["target"] as? [String: Any])?["text"] as? String == "buy followers")
            #expect((oldest["target"] as? [String: Any])?["author_id"] as? Int == Int(alice.id))
            #expect(oldest["text"] as? String == "an ad")

            // Restoring shows it again and closes its reports; a reporter may report it anew.
            let restored = try await client.send(
                .delete, "/v1/moderation/reviews/\(spam)/hidden", token: moderator.token)
            #expect(restored.status == .ok)
            #expect(try json(restored)["closed_reports"] as? Int == 3)
            #expect(try await BlockTests.texts(client, "/v1/reviews", token: nil) == ["buy followers"])
            #expect(try await Self.queue(client, token: moderator.token) == ["carol → user \(dave.id) (1, -)"])
            let anew = try json(
                try await client.send(.post, "/v1/reviews/\(spam)/report", json: ["reason": "spam"], token: bob.token))
            #expect(anew["id"] as? Int != filed["id"] as? Int)

            // A dismissed report leaves the queue; dismissing it again answers it unchanged.
            let userReport = try #require(
                (try json(try await client.send(.get, "/v1/moderation/reports", token: moderator.token))["items"]
                    as? [[String: Any]])?.first { $0["target_type"] as? String == "user" }?["id"] as? Int)
            for _ in 0..<2 {
                let dismissed = try await client.send(
                    .post, "/v1/moderation/reports/\(userReport)/dismiss", json: ["reason": "banter"],
                    token: moderator.token)
                #expect(dismissed.status == .ok)
                #expect(try json(dismissed)["status"] as? String == "dismissed")
            }
            #expect(
                try await client.send(.post, "/v1/moderation/reports/999999/dismiss", token: moderator.token).status
                    == .notFound)
            #expect(try await Self.queue(client, token: moderator.token) == ["bob → review \(spam) (1, false)"])

            // The audit log names each decision; the automatic hide has no moderator.
            let log = try json(try await client.send(.get, "/v1/moderation/audit", token: moderator.token))
            let actions = try #require(log["items"] as? [[String: Any]]).map {
                "\($0["action"]!) \($0["target_type"]!) by \($0["moderator_id"] is NSNull ? "-" : "mod")"
            }
            #expect(
                actions == [
                    "dismiss_report report by mod", "restore review by mod", "auto_hide review by -",
                    "grant_moderator user by -",
                ])
        }
    }

    @Test(
        "a moderator hides a comment from all but its author; reports of oneself, one's own content, missing objects or with unknown reasons are refused and store nothing",
        arguments: StoreEngine.available)
    func hiddenCommentsAndBadReports(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.reportRules = ReportRules(hideThreshold: 1)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let moderator = try await client.member("mod")
            #expect(
                try await environment.stores.moderation.setModerator(
                    email: "mod@example.com", granted: true, at: .now()) == .done)
            let place = try await client.addPlace("Comment Corner", token: alice.token)
            let review = try #require(
                try json(try await client.postReview(place: place, text: "juicy", token: alice.token))["id"] as? Int)
            var commentIDs: [Int] = []
            for (text, token) in [("nice", alice.token), ("rude words", bob.token)] {
                let made = try await client.send(
                    .post, "/v1/reviews/\(review)/comments", json: ["text": text], token: token)
                commentIDs.append(try #require(try json(made)["id"] as? Int))
            }
            let path = "/v1/reviews/\(review)/comments"

            let hidden = try await client.send(
                .put, "/v1/moderation/comments/\(commentIDs[1])/hidden", json: ["reason": "insult"],
                token: moderator.token)
            #expect(hidden.status == .ok)
            #expect(try json(hidden)["hidden"] as? Bool == true)
            #expect(try await BlockTests.texts(client, path, token: nil) == ["nice"])
            #expect(try await BlockTests.texts(client, path, token: alice.token) == ["nice"])
            #expect(try await BlockTests.texts(client, path, token: bob.token) == ["nice", "rude words"])
            #expect(try await client.send(.get, "/v1/comments/\(commentIDs[1])").status == .notFound)
            #expect(
                try await client.send(.get, "/v1/comments/\(commentIDs[1])", token: alice.token).status == .notFound)
            #expect(try await client.send(.get, "/v1/comments/\(commentIDs[1])", token: bob.token).status == .ok)
            #expect(
                try await client.send(.put, "/v1/moderation/comments/999999/hidden", json: [:], token: moderator.token)
                    .status == .notFound)
            #expect(
                try await client.send(
                    .put, "/v1/moderation/comments/\(commentIDs[1])/hidden", json: [:], token: bob.token
                )
                .status == .forbidden)
            #expect(
                try await client.send(
                    .delete, "/v1/moderation/comments/\(commentIDs[1])/hidden", token: moderator.token
                )
                .status == .ok)
            #expect(try await BlockTests.texts(client, path, token: nil) == ["nice", "rude words"])

            // With a threshold of one, one report hides a comment at once.
            #expect(
                try await client.send(
                    .post, "/v1/comments/\(commentIDs[1])/report", json: ["reason": "harassment"], token: alice.token
                ).status == .accepted)
            #expect(try await BlockTests.texts(client, path, token: nil) == ["nice"])

            let refused: [(String, [String: Any], Int, String)] = [
                ("/v1/users/\(alice.id)/report", ["reason": "spam"], 400, "validation_failed"),
                ("/v1/reviews/\(review)/report", ["reason": "spam"], 400, "validation_failed"),
                ("/v1/comments/\(commentIDs[0])/report", ["reason": "spam"], 400, "validation_failed"),
                ("/v1/reviews/999999/report", ["reason": "spam"], 404, "not_found"),
                ("/v1/comments/999999/report", ["reason": "spam"], 404, "not_found"),
                ("/v1/users/999999/report", ["reason": "spam"], 404, "not_found"),
                ("/v1/users/\(bob.id)/report", ["reason": "rude"], 400, "validation_failed"),
                ("/v1/users/\(bob.id)/report", [:], 400, "validation_failed"),
                (
                    "/v1/users/\(bob.id)/report", ["reason": "spam", "text": String(repeating: "x", count: 1001)], 400,
                    "validation_failed"
                ),
            ]
            for (path, body, status, code) in refused {
                let response = try await client.send(.post, path, json: body, token: alice.token)
                #expect(response.status.code == status, "\(path) \(body)")
                #expect(try problemCode(response) == code, "\(path) \(body)")
            }
            let unknown = try json(
                try await client.send(.post, "/v1/users/\(bob.id)/report", json: ["reason": "rude"], token: alice.token)
            )
            let fieldError = try #require((unknown["errors"] as? [[String: Any]])?.first)
            #expect(fieldError["field"] as? String == "reason" && fieldError["code"] as? String == "unsupported")
            #expect(
                try await client.send(.post, "/v1/users/\(bob.id)/report", json: ["reason": "spam"]).status
                    == .unauthorized)
            #expect(try await environment.rowCount("reports") == 1)
        }
    }
}
