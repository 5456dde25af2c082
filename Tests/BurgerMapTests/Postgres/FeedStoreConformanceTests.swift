import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres

/// The feed on every engine equals a brute-force computation, through the time window and the
/// per-author road alike, and both engines answer the same reviews, field for field.
@Suite("Feed stores answer alike")
struct FeedStoreConformanceTests {
    /// A seeded social graph: 12 users, the reader (users[0]) following five of them, and 150
    /// reviews by everyone at times with many ties. Answers the users and every review.
    static func seed(_ harness: any ReviewStoresHarness) async throws -> (users: [Int64], reviews: [Review]) {
        var random = SeededGenerator(seed: 7)
        var users: [Int64] = []
        for index in 0..<12 { users.append(try await harness.makeUser("user\(index)")) }
        let places = [try await harness.makePlace("One"), try await harness.makePlace("Two")]
        for followee in [1, 2, 5, 8, 11] {
            _ = try await harness.social.setFollow(true, follower: users[0], followee: users[followee], at: moment(0))
        }
        // Others follow the reader and each other: none of that is the reader's feed.
        _ = try await harness.social.setFollow(true, follower: users[3], followee: users[0], at: moment(0))
        _ = try await harness.social.setFollow(true, follower: users[3], followee: users[4], at: moment(0))
        var reviews: [Review] = []
        for _ in 0..<150 {
            // Authors 1, 2 and 8 write rarely: the per-author road has sparse authors to merge.
            var author = Int.random(in: 0..<12, using: &random)
            if [1, 2, 8].contains(author), Int.random(in: 0..<4, using: &random) > 0 { author = 3 }
            reviews.append(
                try await harness.review(
                    place: places[author % 2], author: users[author], rating: 1 + author % 5,
                    at: moment(Int64.random(in: 0..<40, using: &random))))
        }
        _ = try await harness.social.setReaction(
            .like, active: true, review: reviews[7].id, user: users[0], at: moment(1))
        return (users, reviews)
    }

    /// The reader's feed by brute force: followed authors' reviews and their own, newest first, ties by id.
    static func expected(_ users: [Int64], _ reviews: [Review]) -> [Int64] {
        let authors = Set([0, 1, 2, 5, 8, 11].map { users[$0] })
        return reviews.filter { authors.contains($0.author.id) }
            .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id)
    }

    @Test(
        "every page of the feed equals brute force, through a time window of any size",
        arguments: StoreEngine.available)
    func bruteForce(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let (users, reviews) = try await Self.seed(harness)
            let expected = Self.expected(users, reviews)
            #expect(expected.count > 30)
            for limit in [1, 3, 20] {
                let found = try await allPages(limit: limit) { after in
                    try await harness.feed.feed(of: users[0], after: after, limit: limit)
                }
                #expect(found.map(\.id) == expected, "limit \(limit)")
                // 1 window entry: always the per-author road; 8: a mix; 1000: the window until the end.
                for window in [1, 8, 1000] {
                    let walked = try await allPages(limit: limit) { after in
                        try await harness.feed(of: users[0], after: after, limit: limit, window: window)
                    }
                    #expect(walked.map(\.id) == expected, "limit \(limit), window \(window)")
                }
            }
            let page = try await harness.feed.feed(of: users[0], after: nil, limit: 200)
            #expect(
                page.items.filter(\.likedByMe).map(\.id) == (expected.contains(reviews[7].id) ? [reviews[7].id] : []))
            // Someone who follows nobody sees their own reviews only; a stranger id sees nothing.
            let own = try await harness.feed.feed(of: users[4], after: nil, limit: 200)
            #expect(
                own.items.map(\.id)
                    == reviews.filter { $0.author.id == users[4] }
                    .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id))
            #expect(try await harness.feed.feed(of: 9_999, after: nil, limit: 5).items.isEmpty)
        }
    }

    /// A review without its author's account time, which the harnesses set differently (the
    /// SQLite one creates accounts through the store, at the wall clock).
    static func comparable(_ review: Review) -> Review {
        var review = review
        review.author.createdAt = Timestamp(milliseconds: 0)
        return review
    }

    @Test("both engines answer the same feed, review lists and reacted lists, field for field")
    func sideBySide() async throws {
        try await withReviewStores(.sqlite) { sqlite in
            try await withReviewStores(.postgres) { postgres in
                let left = try await Self.seed(sqlite)
                let right = try await Self.seed(postgres)
                #expect(left.reviews.map(Self.comparable) == right.reviews.map(Self.comparable))
                let reader = left.users[0]
                for limit in [4, 50] {
                    let pages: [(any ReviewStoresHarness) async throws -> [Review]] = [
                        { harness in
                            try await allPages(limit: limit) {
                                try await harness.feed.feed(of: reader, after: $0, limit: limit)
                            }
                        },
                        { harness in
                            try await allPages(limit: limit) {
                                try await harness.reviews.reviews(.all, after: $0, limit: limit, viewer: reader)
                            }
                        },
                        { harness in
                            try await allPages(limit: limit) {
                                try await harness.social.reactedReviews(.like, user: reader, after: $0, limit: limit)
                            }
                        },
                    ]
                    for list in pages {
                        let a = try await list(sqlite).map(Self.comparable)
                        let b = try await list(postgres).map(Self.comparable)
                        #expect(!a.isEmpty)
                        #expect(
                            a == b,
                            "\(a.count) vs \(b.count) reviews, first difference at \(a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? -1)"
                        )
                    }
                }
            }
        }
    }
}
