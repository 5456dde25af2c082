import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMapSQLite

@Suite("Feed")
struct FeedTests {
    @Test(
        "the feed holds the followed users' reviews and my own, newest first, and nobody else's",
        arguments: StoreEngine.available)
    func content(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let me = try await client.member("reader")
            let followed = try await client.member("followed")
            let stranger = try await client.member("stranger")
            let place = try await client.addPlace("Patty Lab", token: me.token)
            #expect(try await client.send(.put, "/v1/users/\(followed.id)/follow", token: me.token).status == .ok)
            var expected: [Int64] = []
            for index in 0..<7 {
                let author = [me, followed, stranger][index % 3]
                let id = try await client.reviewID(place: place, text: "r\(index)", token: author.token)
                if author.id != stranger.id { expected.insert(id, at: 0) }
            }
            #expect(try await client.send(.put, "/v1/reviews/\(expected[1])/like", token: me.token).status == .ok)
            let feed = try await client.walk("/v1/feed", limit: 2, token: me.token)
            #expect(ids(feed) == expected)
            #expect(feed.map { $0["liked_by_me"] as? Bool } == expected.indices.map { $0 == 1 })

            // Someone who follows nobody sees their own reviews only; no token is 401.
            #expect(ids(try await client.walk("/v1/feed", limit: 5, token: stranger.token)).count == 2)
            #expect(try await client.send(.get, "/v1/feed").status == .unauthorized)
            #expect(try await client.send(.delete, "/v1/users/\(followed.id)/follow", token: me.token).status == .ok)
            #expect(ids(try await client.walk("/v1/feed", limit: 5, token: me.token)).count == 3)
        }
    }

    @Test(
        "a feed cursor works for its owner only, and a cursor of another list is refused",
        arguments: StoreEngine.available)
    func cursors(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            for _ in 0..<3 { _ = try await client.reviewID(place: place, token: alice.token) }
            #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: bob.token).status == .ok)
            let alicePage = try json(try await client.send(.get, "/v1/feed?limit=1", token: alice.token))
            let aliceCursor = try #require(alicePage["next_cursor"] as? String)
            let stolen = try await client.send(.get, "/v1/feed?cursor=\(aliceCursor)", token: bob.token)
            #expect(stolen.status == .badRequest)
            #expect(try problemCode(stolen) == "invalid_cursor")
            let own = try await client.send(.get, "/v1/feed?limit=1&cursor=\(aliceCursor)", token: alice.token)
            #expect(own.status == .ok)
            let allPage = try json(try await client.send(.get, "/v1/reviews?limit=1"))
            let allCursor = try #require(allPage["next_cursor"] as? String)
            #expect(
                try problemCode(try await client.send(.get, "/v1/feed?cursor=\(allCursor)", token: alice.token))
                    == "invalid_cursor")
            #expect(
                try problemCode(try await client.send(.get, "/v1/reviews?cursor=\(aliceCursor)")) == "invalid_cursor")
            #expect(
                try problemCode(try await client.send(.get, "/v1/feed?cursor=x.y", token: alice.token))
                    == "invalid_cursor")
        }
    }

    @Test(
        "items added or deleted while a client pages: none seen twice, none that existed throughout skipped",
        arguments: StoreEngine.available)
    func pagingWhileWriting(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let reader = try await client.member("reader")
            let writer = try await client.member("writer")
            let place = try await client.addPlace("Patty Lab", token: writer.token)
            #expect(try await client.send(.put, "/v1/users/\(writer.id)/follow", token: reader.token).status == .ok)
            var existing: [Int64] = []
            for index in 0..<12 {
                existing.append(try await client.reviewID(place: place, text: "old \(index)", token: writer.token))
            }
            // Newest first: the client will next see existing[11], existing[10], …
            var deleted: Set<Int64> = []
            for path in ["/v1/feed", "/v1/reviews", "/v1/users/\(writer.id)/reviews", "/v1/places/\(place)/reviews"] {
                let seen = try await client.walk(path, limit: 3, token: reader.token) { page in
                    // After each page: a new review on top, and one not yet seen goes.
                    _ = try await client.reviewID(place: place, text: "new \(page)", token: writer.token)
                    if let victim = existing.filter({ !deleted.contains($0) }).dropLast(2).first {
                        #expect(
                            try await client.send(.delete, "/v1/reviews/\(victim)", token: writer.token).status
                                == .noContent)
                        deleted.insert(victim)
                    }
                }
                let seenIDs = ids(seen)
                #expect(Set(seenIDs).count == seenIDs.count, "\(path) showed an item twice")
                let throughout = existing.filter { !deleted.contains($0) }
                #expect(Set(throughout).isSubset(of: Set(seenIDs)), "\(path) skipped an item")
                #expect(seenIDs == seenIDs.sorted(by: >), "\(path) is not newest first")
            }
        }
    }

    @Test("the time-window and per-author roads give the same pages, also when the window runs out")
    func bothRoadsAgree() async throws {
        let environment = try TestEnvironment()
        let database = environment.database
        let (viewer, expected) = try await database.pool.write { db -> (Int64, [Int64]) in
            try db.execute(
                sql:
                    "INSERT INTO places (name, lat, lng, geom, created_at, updated_at) VALUES ('P', 1, 1, MakePoint(1, 1, 4326), 0, 0)"
            )
            for user in 1...30 {
                try db.execute(
                    sql: """
                        INSERT INTO users (id, email, email_key, password_hash, nickname, nickname_key, created_at, updated_at)
                        VALUES (?, ?, ?, 'x', ?, ?, 0, 0)
                        """, arguments: [user, "u\(user)@x", "u\(user)@x", "u\(user)", "u\(user)"])
            }
            for followee in [3, 17, 29] {
                try db.execute(
                    sql: "INSERT INTO follows (follower_id, followee_id, created_at) VALUES (1, ?, 0)",
                    arguments: [followee])
            }
            var generator = SeededGenerator(seed: 20_261_122)
            var expected: [(Int64, Int64)] = []
            for index in 1...600 {
                let author = Int64.random(in: 1...30, using: &generator)
                // Coarse times, so that many reviews share one and the id decides.
                let time = Int64.random(in: 0...150, using: &generator)
                try db.execute(
                    sql:
                        "INSERT INTO reviews (id, place_id, author_id, rating, text, created_at, updated_at) VALUES (?, 1, ?, 3, 't', ?, ?)",
                    arguments: [index, author, time, time])
                if [1, 3, 17, 29].contains(author) { expected.append((time, Int64(index))) }
            }
            return (Int64(1), expected.sorted { $0 > $1 }.map(\.1))
        }
        for (plan, window) in [(FeedPlan.automatic, 40), (.automatic, 4_000), (.perAuthor, 0), (.timeWindow, 10_000)] {
            var seen: [Int64] = []
            var after: TimeKey?
            repeat {
                let page = try await database.feed(of: viewer, after: after, limit: 7, plan: plan, window: window)
                seen += page.items.map(\.id)
                after = page.next
            } while after != nil
            #expect(seen == expected, "\(plan) window \(window)")
        }
    }
}
