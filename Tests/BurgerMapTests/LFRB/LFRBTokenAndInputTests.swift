import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The app's key, token cycle, pending uploads and bad input, on both engines.
@Suite("The LookForRealBurger routes: key, tokens, uploads and bad input")
struct LFRBTokenAndInputTests {
    @Test(
        "419 → refresh → retry; the refresh token keeps working; 418 once it is expired or unknown",
        arguments: StoreEngine.available)
    func tokenCycle(engine: StoreEngine) async throws {
        let environment = try await LFRBScreenTests.environment(engine, places: 2)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let app = LFRBApp(client)
            try await app.joinAndLogIn("sleepy")
            let query = ["limit": "21", "product_id": LFRBProduct.review]
            #expect(try await app.send(.get, "v1/posts", query: query).status == .ok)
            clock.advance(milliseconds: 301_000)
            #expect(try await app.send(.get, "v1/posts", query: query).status.code == 419)
            let old = app.accessToken
            // `call` refreshes on 419 and sends the request again, as the app's view models do.
            let page = try app.decode(LFRBPostList.self, try await app.call(.get, "v1/posts", query: query))
            #expect(page.next_cursor == "0" && app.accessToken != old)
            // The app never stores another refresh token: the one from its login keeps working.
            clock.advance(milliseconds: 301_000)
            #expect(try await app.send(.get, "v1/posts", query: query).status.code == 419)
            #expect(try await app.call(.get, "v1/posts", query: query).status == .ok)
            // The native refresh route still rotates it: once used there, it is gone here too.
            let native = try await client.send(.post, "/v1/auth/refresh", json: ["refresh_token": app.refreshToken])
            #expect(native.status == .ok)
            #expect(try await app.refresh().status.code == 418)
            // A new login's token expires after 30 days.
            try await app.logIn(email: "sleepy@example.com", password: "burger-lover-1")
            #expect(try await app.refresh().status == .ok)
            clock.advance(milliseconds: 31 * 24 * 3600 * 1000)
            let expired = try await app.refresh()
            #expect(expired.status.code == 418)
            #expect(
                try JSONDecoder().decode(LFRBMessage.self, from: Data(buffer: expired.body)).message.isEmpty == false)
            app.refreshToken = "not-a-token"
            #expect(try await app.refresh().status.code == 418)
            #expect(try await app.send(.get, "v1/auth/refresh").status.code == 400)
        }
    }

    @Test("SesacKey, bare tokens, and no routes without a key", arguments: StoreEngine.available)
    func keyAndTokens(engine: StoreEngine) async throws {
        let environment = try await LFRBScreenTests.environment(engine, places: 1)
        try await environment.withClient { client in
            let app = LFRBApp(client)
            let login = try await app.joinAndLogIn("keyholder")
            let query = ["limit": "21", "product_id": LFRBProduct.review]
            #expect(try await app.send(.get, "v1/posts", query: query, key: nil).status.code == 420)
            #expect(try await app.send(.get, "v1/posts", query: query, key: "wrong").status.code == 420)
            #expect(
                try await app.send(
                    .post, "v1/users/login", json: ["email": "keyholder@example.com", "password": "x"], key: nil,
                    authorized: false
                ).status.code == 420)
            app.accessToken = "Bearer " + login.accessToken
            #expect(try await app.send(.get, "v1/posts", query: query).status.code == 401)
            app.accessToken = "garbage"
            #expect(try await app.send(.get, "v1/posts", query: query).status.code == 401)
            app.accessToken = ""
            #expect(try await app.send(.get, "v1/posts", query: query).status.code == 401)
        }
        // Without a key, none of the app's routes exist.
        let plain = try await TestEnvironment(engine)
        try await plain.withClient { client in
            let app = LFRBApp(client)
            let list = try await app.send(.get, "v1/posts", query: ["limit": "21"])
            let login = try await app.send(.post, "v1/validation/email", json: ["email": "a@b.co"])
            #expect(list.status.code == 404 && login.status.code == 404)
        }
    }

    @Test(
        "uploaded photos: only the uploader's, once each, and gone with their files after a day",
        arguments: StoreEngine.available)
    func pendingPhotos(engine: StoreEngine) async throws {
        let environment = try await LFRBScreenTests.environment(engine, places: 1)
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let owner = LFRBApp(client)
            try await owner.joinAndLogIn("owner")
            let thief = LFRBApp(client)
            try await thief.joinAndLogIn("thief")
            let restaurant = "place-1"
            func post(_ app: LFRBApp, _ files: [String]) async throws -> TestResponse {
                try await app.call(
                    .post, "v1/posts",
                    json: [
                        "title": "t", "price": 3, "content": "c", "content1": restaurant,
                        "product_id": LFRBProduct.review, "files": files,
                    ])
            }
            let files = try owner.decode(
                LFRBUpload.self, try await owner.upload([TestImages.jpeg(), TestImages.jpeg()])
            ).files
            #expect(files.count == 2 && files.allSatisfy { $0.hasPrefix("photos/") && $0.hasSuffix(".jpg") })
            #expect(try await post(thief, files).status.code == 400)
            #expect(try await post(owner, files + ["photos/999999.jpg"]).status.code == 400)
            #expect(try await post(owner, ["../../etc/passwd"]).status.code == 400)
            #expect(try await environment.rowCount("reviews") == 0)
            #expect(try await post(owner, files).status == .ok)
            #expect(try await post(owner, files).status.code == 400)
            #expect(try await environment.rowCount("reviews") == 1)
            // An upload never posted is deleted, rows and files, once a day has passed.
            let stale = try owner.decode(LFRBUpload.self, try await owner.upload([TestImages.jpeg()])).files
            #expect(try await environment.photoFiles().stored.count == 6)
            clock.advance(milliseconds: PendingPhotos.lifetime + 1000)
            owner.accessToken = try owner.decode(LFRBRefresh.self, try await owner.refresh()).accessToken
            let fresh = try owner.decode(LFRBUpload.self, try await owner.upload([TestImages.jpeg()])).files
            #expect(try await environment.photoFiles().stored.count == 6)
            #expect(try await owner.send(.get, "v1/" + stale[0]).status == .notFound)
            #expect(try await post(owner, stale).status.code == 400)
            #expect(try await post(owner, fresh).status == .ok)
            #expect(try await environment.rowCount("photos") == 3)
            // No part named files, or six images: 400, nothing stored.
            #expect(try await owner.upload([]).status.code == 400)
            #expect(
                try await owner.upload(Array(repeating: TestImages.jpeg(width: 16, height: 16), count: 6)).status.code
                    == 400)
            #expect(try await environment.rowCount("photos") == 3)
            #expect(try await environment.photoFiles().incoming.isEmpty)
        }
    }

    @Test("bad input gets the app's statuses and writes nothing", arguments: StoreEngine.available)
    func badInput(engine: StoreEngine) async throws {
        let environment = try await LFRBScreenTests.environment(engine, places: 1)
        try await environment.withClient { client in
            let app = LFRBApp(client)
            try await app.joinAndLogIn("tester")
            func status(_ body: [String: Any]) async throws -> Int {
                Int(try await app.call(.post, "v1/posts", json: body).status.code)
            }
            let review: [String: Any] = [
                "title": "t", "price": 3, "content": "c", "content1": "place-1", "product_id": LFRBProduct.review,
                "files": [String](),
            ]
            #expect(try await status(review.merging(["product_id": "SOMETHING_ELSE"]) { $1 }) == 400)
            #expect(try await status(review.merging(["content1": "127.5"]) { $1 }) == 400)
            #expect(try await status(review.merging(["content1": "review-1"]) { $1 }) == 400)
            #expect(try await status(review.merging(["content1": "place-999999"]) { $1 }) == 400)
            #expect(try await status(review.merging(["price": 6]) { $1 }) == 400)
            #expect(try await status(review.merging(["price": "5"]) { $1 }) == 400)
            #expect(try await status(review.merging(["title": " "]) { $1 }) == 400)
            let restaurant: [String: Any] = [
                "title": "R", "content": "#R", "content1": "east", "content2": "37.5", "content3": "", "content4": "",
                "content5": "K-9", "product_id": LFRBProduct.restaurant,
            ]
            #expect(try await status(restaurant) == 400)
            #expect(try await status(restaurant.merging(["content1": "127", "content2": "91"]) { $1 }) == 400)
            #expect(try await environment.rowCount("reviews") == 0)
            #expect(try await environment.rowCount("places") == 1)
            #expect(try await app.call(.get, "v1/posts", query: ["limit": "21", "product_id": "X"]).status.code == 400)
            #expect(
                try await app.call(.get, "v1/posts", query: ["limit": "many", "product_id": LFRBProduct.review]).status
                    .code == 400)
            #expect(try await app.call(.get, "v1/posts/nothing").status.code == 410)
            let missingUser = try await app.call(
                .get, "v1/posts/users/999999", query: ["limit": "21", "product_id": LFRBProduct.review])
            #expect(missingUser.status.code == 410)
            #expect(try await app.call(.get, "v1/posts/review-424242").status.code == 410)
            #expect(try await app.call(.post, "v1/posts/place-1/like", json: ["like_status": true]).status.code == 400)
            #expect(
                try await app.call(.post, "v1/posts/place-1/comments", json: ["content": "hello"]).status.code == 400)
            #expect(
                try await app.call(.post, "v1/posts/review-424242/comments", json: ["content": "hello"]).status.code
                    == 410)
            #expect(try await app.call(.post, "v1/follow/\(app.userID)").status.code == 400)
        }
    }
}
