import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("The objectionable-text filter")
struct BlockedWordsTests {
    static let words = BlockedWords(terms: ["bad", "욕설", "Verboten", "  ", "ｓｐａｍ"])

    @Test("terms match after folding case, width and diacritics; Latin terms match whole words only")
    func matching() {
        let words = Self.words
        #expect(words.count == 4)
        for text in ["a BAD day", "ＢＡＤ", "bád", "so bad.", "bad", "수제욕설버거", "VERBÖTEN!", "no spam here", "SPAM"] {
            #expect(words.matches(text), "\(text)")
        }
        for text in ["badminton", "abad", "a good day", "", "욕 설", "spammer"] {
            #expect(!words.matches(text), "\(text)")
        }
        #expect(!BlockedWords.none.matches("bad"))
    }

    @Test("a word list file: one term a line, blank lines and # comments ignored")
    func file() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blocked-\(UUID().uuidString).txt")
        try Data("# house rules\n\n  bad  \r\n욕설\n#not-a-term\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let words = try BlockedWords(contentsOf: url)
        #expect(words.count == 2)
        #expect(words.matches("Bad") && words.matches("욕설") && !words.matches("not-a-term"))
    }

    @Test(
        "reviews, titles, comments, nicknames and bios with a term are refused, and nothing is stored",
        arguments: StoreEngine.available)
    func routes(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.blockedWords = Self.words
        environment.configuration.lslp = LFRBApp.settings
        try await environment.withClient { client in
            func objectionable(_ response: TestResponse, _ field: String) throws {
                #expect(response.status == .badRequest)
                let body = try json(response)
                let errors = try #require(body["errors"] as? [[String: Any]])
                #expect(errors.first?["field"] as? String == field)
                #expect(errors.first?["code"] as? String == "objectionable")
            }
            let refused = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "x@example.com", "password": "long enough pw", "nickname": "Ｂａｄminton"])
            #expect(refused.status == .created)  // "badminton": the term is not a whole word there
            let nickname = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "y@example.com", "password": "long enough pw", "nickname": "very bad"])
            try objectionable(nickname, "nickname")
            let korean = try await client.send(
                .post, "/v1/auth/register",
                json: ["email": "z@example.com", "password": "long enough pw", "nickname": "욕설왕"], language: "ko")
            try objectionable(korean, "nickname")
            #expect((try json(korean)["detail"] as? String)?.contains("허용되지 않는") == true)

            let member = try await client.member("member")
            let place = try await client.addPlace("Clean Burgers", token: member.token)
            try objectionable(
                try await client.postReview(
                    place: place, text: "A bád burger", photos: [TestImages.jpeg()], token: member.token),
                "text")
            #expect(try await environment.reviewRowCounts() == (0, 0))
            #expect(try await environment.photoFiles().stored.isEmpty)
            let review = try await client.postReview(place: place, text: "A good burger", token: member.token)
            #expect(review.status == .created)
            let reviewID = try #require(try json(review)["id"] as? Int)
            try objectionable(
                try await client.send(
                    .patch, "/v1/reviews/\(reviewID)", json: ["title": "VERBOTEN"], token: member.token),
                "title")
            try objectionable(
                try await client.send(
                    .post, "/v1/reviews/\(reviewID)/comments", json: ["text": "spam"], token: member.token), "text")
            try objectionable(
                try await client.send(.patch, "/v1/users/me", json: ["bio": "I love 욕설"], token: member.token), "bio")
            #expect(try await environment.rowCount("comments") == 0)

            // The LookForRealBurger routes apply the same filter.
            let app = LFRBApp(client)
            try await app.joinAndLogIn("lfrbmember")
            let post = try await app.call(
                .post, "v1/posts",
                json: [
                    "title": "ok", "price": 3, "content": "bad bad", "content1": "place-\(place)",
                    "product_id": LFRBProduct.review, "files": [String](),
                ])
            #expect(post.status == .badRequest)
            let comment = try await app.call(.post, "v1/posts/review-\(reviewID)/comments", json: ["content": "ＳＰＡＭ"])
            #expect(comment.status == .badRequest)
            #expect(try await environment.reviewRowCounts() == (1, 0))
        }
    }
}
