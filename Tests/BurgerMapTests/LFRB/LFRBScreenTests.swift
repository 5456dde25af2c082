import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The LookForRealBurger app's screens, replayed request by request (`LFRBApp`) against the
/// real router on both engines, beside imported places and native reviews.
@Suite("The LookForRealBurger app's screens")
struct LFRBScreenTests {
    /// An environment with the app's routes on, and imported places.
    static func environment(_ engine: StoreEngine, places: Int = 30) async throws -> TestEnvironment {
        let environment = try await TestEnvironment(engine)
        environment.configuration.lslp = LFRBApp.settings
        try await environment.insert(
            (0..<places).map { index in
                PlaceDraft(
                    name: "버거집 \(index)", lat: 37.5 + Double(index) * 0.001, lng: 127.0 + Double(index) * 0.001,
                    address: index.isMultiple(of: 2) ? "서울 강남구 \(index)" : nil, source: "seoul-open-data",
                    externalId: "S\(index)")
            })
        return environment
    }

    @Test(
        "join and login: email check, join, duplicate, nickname with a space, wrong password",
        arguments: StoreEngine.available)
    func joinAndLogin(engine: StoreEngine) async throws {
        let environment = try await Self.environment(engine, places: 0)
        try await environment.withClient { client in
            let app = LFRBApp(client)
            let check = try await app.send(
                .post, "v1/validation/email", json: ["email": "patty@example.com"], authorized: false)
            #expect(try app.decode(LFRBMessage.self, check).message.isEmpty == false)
            let join = try app.decode(
                LFRBJoin.self,
                try await app.send(
                    .post, "v1/users/join",
                    json: ["email": "patty@example.com", "password": "burger-lover-1", "nick": "patty"],
                    authorized: false))
            #expect(join.nick == "patty" && join.email == "patty@example.com")
            let again = try await app.send(
                .post, "v1/validation/email", json: ["email": "PATTY@example.com"], authorized: false)
            #expect(again.status.code == 409)
            let duplicate = try await app.send(
                .post, "v1/users/join",
                json: ["email": "patty@example.com", "password": "burger-lover-1", "nick": "p2"],
                authorized: false)
            #expect(duplicate.status.code == 409)
            #expect(
                try JSONDecoder().decode(LFRBMessage.self, from: Data(buffer: duplicate.body)).message.isEmpty == false)
            let spaced = try await app.send(
                .post, "v1/users/join",
                json: ["email": "bun@example.com", "password": "burger-lover-1", "nick": "b un"],
                authorized: false)
            #expect(spaced.status.code == 402)
            let wrong = try await app.send(
                .post, "v1/users/login", json: ["email": "patty@example.com", "password": "wrong-password"],
                authorized: false)
            #expect(wrong.status.code == 401)
            let login = try await app.logIn(email: "patty@example.com", password: "burger-lover-1")
            #expect(login.user_id == join.user_id && login.nick == "patty")
            // The same access token works on the native routes with `Bearer`.
            let me = try await client.send(.get, "/v1/users/me", token: login.accessToken)
            #expect(me.status == .ok)
        }
    }

    @Test(
        "map load: every place is a pin, reviews (native and the app's) hang on their restaurant, next_cursor \"0\"",
        arguments: StoreEngine.available)
    func mapLoad(engine: StoreEngine) async throws {
        let environment = try await Self.environment(engine)
        try await environment.withClient { client in
            let native = try await client.member("native")
            let nativePlace = try await client.addPlace("Patty Lab", token: native.token)
            let nativeReview = try json(
                try await client.postReview(place: nativePlace, text: "Native smash.", token: native.token))
            let app = LFRBApp(client)
            try await app.joinAndLogIn("appuser")
            let written = try await app.writeReview(
                kakaoID: "K-1001", name: "수제버거하우스", lng: "127.0301", lat: "37.4991", images: [TestImages.jpeg()],
                title: "최고", text: "패티가 두껍다", rating: 4)

            let map = try app.decode(
                LFRBPostList.self,
                try await app.send(.get, "v1/posts", query: ["limit": "300000", "product_id": LFRBProduct.restaurant]))
            #expect(map.next_cursor == "0")
            #expect(map.data.count == 32)
            #expect(map.data.allSatisfy { $0.isPin })
            #expect(Set(map.data.map(\.post_id)).count == 32)
            let nativePost = try #require(map.data.first { $0.post_id == "place-\(nativePlace)" })
            #expect(nativePost.title == "Patty Lab" && nativePost.comments.count == 1)
            let appRestaurant = try #require(map.data.first { $0.post_id == written.restaurantID })
            #expect(appRestaurant.content5 == "K-1001" && appRestaurant.title == "수제버거하우스")
            #expect(appRestaurant.comments.map(\.content) == [written.review.post_id])

            // Tapping each pin: every linked review opens, with its restaurant in content1.
            for restaurant in [nativePost, appRestaurant] {
                for link in restaurant.comments {
                    let review = try app.decode(LFRBPost.self, try await app.call(.get, "v1/posts/\(link.content)"))
                    #expect(review.content1 == restaurant.post_id)
                    #expect(review.product_id == LFRBProduct.review)
                }
            }
            let nativeAsPost = try app.decode(
                LFRBPost.self, try await app.call(.get, "v1/posts/\(nativePost.comments[0].content)"))
            #expect(nativeAsPost.content == "Native smash." && nativeAsPost.post_id == "review-\(nativeReview["id"]!)")

            // Paging a smaller map load: three pages of 12, 12 and 8, each place once.
            var seen: [String] = []
            var next: String?
            repeat {
                var query = ["limit": "12", "product_id": LFRBProduct.restaurant]
                query["next"] = next
                let page = try app.decode(LFRBPostList.self, try await app.send(.get, "v1/posts", query: query))
                seen += page.data.map(\.post_id)
                next = page.next_cursor == "0" ? nil : page.next_cursor
            } while next != nil
            #expect(seen == map.data.map(\.post_id))
        }
    }

    @Test(
        "write a review: restaurant added once by content5, photos uploaded then attached, linked, visible natively",
        arguments: StoreEngine.available)
    func writeReview(engine: StoreEngine) async throws {
        let environment = try await Self.environment(engine, places: 3)
        try await environment.withClient { client in
            let app = LFRBApp(client)
            let login = try await app.joinAndLogIn("writer")
            let first = try await app.writeReview(
                kakaoID: "K-7", name: "Bun Theory", lng: "126.98", lat: "37.57",
                images: [TestImages.jpeg(), TestImages.jpeg(width: 200, height: 300)], title: "Juicy",
                text: "Crisp edges",
                rating: 5)
            #expect(first.review.files.count == 2)
            #expect(first.review.price == 5 && first.review.title == "Juicy" && first.review.content == "Crisp edges")
            #expect(first.review.creator.user_id == login.user_id && first.review.creator.nick == "writer")
            // The second review finds the restaurant by its content5 instead of adding it again.
            let second = try await app.writeReview(
                kakaoID: "K-7", name: "Bun Theory", lng: "126.98", lat: "37.57", images: [TestImages.jpeg()],
                title: "Again", text: "Still good", rating: 4)
            #expect(second.restaurantID == first.restaurantID)
            // A restaurant post with a stored content5 answers the stored place.
            let repeated = try app.decode(
                LFRBPost.self,
                try await app.call(
                    .post, "v1/posts",
                    json: [
                        "title": "Bun Theory", "content": "#Bun Theory", "content1": "126.98", "content2": "37.57",
                        "content3": "", "content4": "", "content5": "K-7", "product_id": LFRBProduct.restaurant,
                    ]))
            #expect(repeated.post_id == first.restaurantID)
            #expect(try await environment.rowCount("places") == 4)

            let restaurant = try app.decode(LFRBPost.self, try await app.call(.get, "v1/posts/\(first.restaurantID)"))
            #expect(Set(restaurant.comments.map(\.content)) == [first.review.post_id, second.review.post_id])
            // The photos are fetched as the app fetches them: base + "v1/" + path, with its headers.
            for path in first.review.files {
                let image = try await app.send(.get, "v1/" + path)
                #expect(image.status == .ok && image.headers[.contentType] == "image/jpeg")
            }
            // The native API shows the same review with its title and photos.
            let reviewID = try #require(Int64(first.review.post_id.dropFirst("review-".count)))
            let native = try json(try await client.send(.get, "/v1/reviews/\(reviewID)"))
            #expect(native["title"] as? String == "Juicy")
            #expect((native["photos"] as? [Any])?.count == 2)
            #expect(try await environment.photoFiles().stored.count == 6)
            // The title on the native API: a new one, `""` refused, `null` clears it.
            let path = "/v1/reviews/\(reviewID)"
            let retitled = try json(
                try await client.send(.patch, path, json: ["title": "Juicier"], token: login.accessToken))
            #expect(retitled["title"] as? String == "Juicier")
            let empty = try await client.send(.patch, path, json: ["title": ""], token: login.accessToken)
            #expect(empty.status == .badRequest)
            let cleared = try json(
                try await client.send(.patch, path, json: ["title": NSNull()], token: login.accessToken))
            #expect(cleared["title"] is NSNull && cleared["text"] as? String == "Crisp edges")
        }
    }

    @Test("the review feed pages by 21 with signed cursors and ends with \"0\"", arguments: StoreEngine.available)
    func reviewFeed(engine: StoreEngine) async throws {
        let environment = try await Self.environment(engine, places: 1)
        try await environment.withClient { client in
            let author = try await client.member("author")
            let place = try await client.addPlace("Feed Burgers", token: author.token)
            for index in 0..<45 {
                let response = try await client.postReview(place: place, text: "Review \(index)", token: author.token)
                #expect(response.status == .created)
            }
            let app = LFRBApp(client)
            try await app.joinAndLogIn("reader")
            var texts: [String] = []
            var sizes: [Int] = []
            var next: String?
            repeat {
                var query = ["limit": "21", "product_id": LFRBProduct.review]
                query["next"] = next
                let page = try app.decode(LFRBPostList.self, try await app.call(.get, "v1/posts", query: query))
                sizes.append(page.data.count)
                texts += page.data.map(\.content)
                next = page.next_cursor == "0" ? nil : page.next_cursor
                if let cursor = next {
                    var edited = query
                    edited["next"] = (cursor.hasPrefix("A") ? "B" : "A") + cursor.dropFirst()
                    #expect(try await app.send(.get, "v1/posts", query: edited).status.code == 400)
                }
            } while next != nil
            #expect(sizes == [21, 21, 3])
            #expect(texts == (0..<45).reversed().map { "Review \($0)" })
            // The author's list on the profile tab is the same reviews.
            let byUser = try app.decode(
                LFRBPostList.self,
                try await app.call(
                    .get, "v1/posts/users/\(author.id)", query: ["limit": "21", "product_id": LFRBProduct.review]))
            #expect(byUser.data.count == 21 && byUser.data[0].content == "Review 44")
        }
    }

    @Test("likes, bookmarks, comments and the liked lists", arguments: StoreEngine.available)
    func reactions(engine: StoreEngine) async throws {
        let environment = try await Self.environment(engine, places: 1)
        try await environment.withClient { client in
            let author = try await client.member("author")
            let place = try await client.addPlace("Like Burgers", token: author.token)
            let reviewID = try #require(
                (try json(try await client.postReview(place: place, token: author.token))["id"] as? NSNumber)?
                    .int64Value)
            let app = LFRBApp(client)
            let me = try await app.joinAndLogIn("fan")
            let post = "review-\(reviewID)"
            #expect(
                try app.decode(
                    LFRBLike.self, try await app.call(.post, "v1/posts/\(post)/like", json: ["like_status": true])
                ).like_status)
            #expect(
                try app.decode(
                    LFRBLike.self, try await app.call(.post, "v1/posts/\(post)/like-2", json: ["like_status": true])
                ).like_status)
            let first = try app.decode(
                LFRBComment.self, try await app.call(.post, "v1/posts/\(post)/comments", json: ["content": "맛있어요"]))
            let second = try app.decode(
                LFRBComment.self, try await app.call(.post, "v1/posts/\(post)/comments", json: ["content": "또 갈래요"]))
            #expect(first.creator.user_id == me.user_id)
            let shown = try app.decode(LFRBPost.self, try await app.call(.get, "v1/posts/\(post)"))
            #expect(shown.likes == [me.user_id] && shown.likes2 == [me.user_id])
            #expect(shown.comments.map(\.comment_id) == [second.comment_id, first.comment_id])
            let liked = try app.decode(
                LFRBPostList.self, try await app.call(.get, "v1/posts/likes/me", query: ["limit": "21"]))
            let bookmarked = try app.decode(
                LFRBPostList.self, try await app.call(.get, "v1/posts/likes-2/me", query: ["limit": "21"]))
            #expect(liked.data.map(\.post_id) == [post] && liked.next_cursor == "0")
            #expect(bookmarked.data.map(\.post_id) == [post])
            #expect(
                !(try app.decode(
                    LFRBLike.self, try await app.call(.post, "v1/posts/\(post)/like", json: ["like_status": false])
                ).like_status))
            let after = try app.decode(LFRBPost.self, try await app.call(.get, "v1/posts/\(post)"))
            #expect(after.likes.isEmpty && after.likes2 == [me.user_id])
            // The native counts follow.
            let native = try json(try await client.send(.get, "/v1/reviews/\(reviewID)"))
            #expect(native["like_count"] as? Int == 0 && native["bookmark_count"] as? Int == 1)
            #expect(native["comment_count"] as? Int == 2)
        }
    }

    @Test("profiles and follows", arguments: StoreEngine.available)
    func profilesAndFollows(engine: StoreEngine) async throws {
        let environment = try await Self.environment(engine, places: 1)
        try await environment.withClient { client in
            let other = LFRBApp(client)
            let otherLogin = try await other.joinAndLogIn("chef")
            let app = LFRBApp(client)
            let me = try await app.joinAndLogIn("diner")
            let mine = try app.decode(LFRBProfile.self, try await app.call(.get, "v1/users/me/profile"))
            #expect(mine.user_id == me.user_id && mine.email == "diner@example.com" && mine.followers.isEmpty)
            let follow = try app.decode(LFRBFollow.self, try await app.call(.post, "v1/follow/\(otherLogin.user_id)"))
            #expect(follow.following_status && follow.nick == "diner" && follow.opponent_nick == "chef")
            #expect(try await app.call(.post, "v1/follow/\(otherLogin.user_id)").status.code == 409)
            let theirs = try app.decode(
                LFRBProfile.self, try await app.call(.get, "v1/users/\(otherLogin.user_id)/profile"))
            #expect(theirs.followers.map(\.user_id) == [me.user_id] && theirs.email == nil)
            let mineAfter = try app.decode(LFRBProfile.self, try await app.call(.get, "v1/users/me/profile"))
            #expect(mineAfter.following.map(\.nick) == ["chef"])
            let unfollow = try app.decode(
                LFRBFollow.self, try await app.call(.delete, "v1/follow/\(otherLogin.user_id)"))
            #expect(!unfollow.following_status)
            #expect(try await app.call(.get, "v1/users/999999/profile").status.code == 410)
        }
    }
}
