import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres

/// Likes, bookmarks, comments and follows: the same outcomes on every engine.
@Suite("Social stores answer alike")
struct SocialStoreConformanceTests {
    @Test(
        "reactions are idempotent, counted exactly, seen by their viewer only, and nil on a missing review",
        arguments: StoreEngine.available)
    func reactions(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let fan = try await harness.makeUser("fan")
            let review = try await harness.review(
                place: try await harness.makePlace("P"), author: author, at: moment(0))
            let social = harness.social
            for _ in 0..<2 {
                let state = try await social.setReaction(
                    .like, active: true, review: review.id, user: fan, at: moment(1))
                #expect(state == ReactionState(active: true, count: 1))
            }
            #expect(
                try await social.setReaction(.bookmark, active: true, review: review.id, user: fan, at: moment(2))
                    == ReactionState(active: true, count: 1))
            #expect(
                try await social.setReaction(.like, active: true, review: review.id, user: author, at: moment(3))
                    == ReactionState(active: true, count: 2))
            let seen = try #require(try await harness.reviews.review(id: review.id, viewer: fan))
            #expect(seen.likedByMe && seen.bookmarkedByMe && seen.likeCount == 2 && seen.bookmarkCount == 1)
            let byAuthor = try #require(try await harness.reviews.review(id: review.id, viewer: author))
            #expect(byAuthor.likedByMe && !byAuthor.bookmarkedByMe)
            let anonymous = try #require(try await harness.reviews.review(id: review.id, viewer: nil))
            #expect(!anonymous.likedByMe && !anonymous.bookmarkedByMe && anonymous.likeCount == 2)
            for _ in 0..<2 {
                #expect(
                    try await social.setReaction(.like, active: false, review: review.id, user: fan, at: moment(4))
                        == ReactionState(active: false, count: 1))
            }
            #expect(try await social.setReaction(.like, active: true, review: 9_999, user: fan, at: moment(5)) == nil)
            #expect(
                try await social.setReaction(.bookmark, active: false, review: 9_999, user: fan, at: moment(5)) == nil)
        }
    }

    @Test("50 users liking one review at once make like_count exactly 50", arguments: StoreEngine.available)
    func concurrentLikes(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let review = try await harness.review(
                place: try await harness.makePlace("P"), author: author, at: moment(0))
            var likers: [Int64] = []
            for index in 0..<50 { likers.append(try await harness.makeUser("liker\(index)")) }
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for liker in likers {
                    group.addTask {
                        let state = try await harness.social.setReaction(
                            .like, active: true, review: review.id, user: liker, at: moment(1))
                        return try #require(state).count
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // Each toggle read the count after its own like, so together they saw 1…50 (in
            // whatever order they committed), and the stored count is 50.
            #expect(counts.max() == 50 && Set(counts).count == counts.count)
            #expect(try await harness.reviews.review(id: review.id, viewer: nil)?.likeCount == 50)
        }
    }

    @Test(
        "reacted reviews: most recent reaction first, ties by review id, paged; a deleted review leaves the list",
        arguments: StoreEngine.available)
    func reactedReviews(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let fan = try await harness.makeUser("fan")
            let place = try await harness.makePlace("P")
            var reviews: [Review] = []
            for index in 0..<9 {
                reviews.append(try await harness.review(place: place, author: author, at: moment(Int64(index))))
            }
            // Reaction times in reverse of review times, with ties.
            var expected: [(time: Int64, id: Int64)] = []
            for (index, review) in reviews.enumerated() where index != 4 {
                let time = Int64(20 - index / 3)
                _ = try await harness.social.setReaction(
                    .bookmark, active: true, review: review.id, user: fan, at: moment(time))
                expected.append((time, review.id))
            }
            _ = try await harness.social.setReaction(
                .like, active: true, review: reviews[4].id, user: fan, at: moment(50))
            let order = expected.sorted { ($0.time, $0.id) > ($1.time, $1.id) }.map(\.id)
            for limit in [1, 2, 5, 20] {
                let found = try await allPages(limit: limit) { after in
                    try await harness.social.reactedReviews(.bookmark, user: fan, after: after, limit: limit)
                }
                #expect(found.map(\.id) == order, "limit \(limit)")
                #expect(found.allSatisfy { $0.bookmarkedByMe && !$0.likedByMe })
            }
            let page = try await harness.social.reactedReviews(.bookmark, user: fan, after: nil, limit: 2)
            #expect(page.next == TimeKey(time: moment(20), id: order[1]))
            #expect(
                try await harness.social.reactedReviews(.like, user: fan, after: nil, limit: 5).items.map(\.id) == [
                    reviews[4].id
                ])
            _ = try await harness.reviews.deleteReview(id: order[0], by: author)
            let rest = try await harness.social.reactedReviews(.bookmark, user: fan, after: nil, limit: 20)
            #expect(rest.items.map(\.id) == Array(order.dropFirst()))
        }
    }

    @Test(
        "comments: oldest first across pages; the author edits; the author or the review's author deletes; counts follow",
        arguments: StoreEngine.available)
    func comments(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let author = try await harness.makeUser("author")
            let commenter = try await harness.makeUser("commenter")
            let stranger = try await harness.makeUser("stranger")
            let review = try await harness.review(
                place: try await harness.makePlace("P"), author: author, at: moment(0))
            let social = harness.social
            #expect(try await social.addComment(review: 9_999, author: commenter, text: "?", at: moment(1)) == nil)
            var added: [BurgerMapCore.Comment] = []
            for index in 0..<7 {
                let writer = index.isMultiple(of: 2) ? commenter : author
                added.append(
                    try #require(
                        try await social.addComment(
                            review: review.id, author: writer, text: "c\(index)", at: moment(Int64(1 + index / 3)))))
            }
            #expect(added[0].author.nickname == "commenter" && added[0].reviewID == review.id && added[0].text == "c0")
            #expect(added[0].createdAt == moment(1) && added[0].updatedAt == moment(1))
            #expect(try await social.comment(id: added[3].id) == added[3])
            #expect(try await social.comment(id: 9_999) == nil)
            for limit in [1, 3, 10] {
                let found = try await allPages(limit: limit) { after in
                    try await social.comments(review: review.id, after: after, limit: limit)
                }
                #expect(found == added, "limit \(limit)")
            }
            #expect(try await harness.reviews.review(id: review.id, viewer: nil)?.commentCount == 7)

            #expect(try await social.updateComment(id: added[0].id, by: author, text: "x", at: moment(9)).isForbidden)
            #expect(try await social.updateComment(id: 9_999, by: author, text: "x", at: moment(9)).isNotFound)
            let edited = try #require(
                try await social.updateComment(id: added[0].id, by: commenter, text: "edited", at: moment(9)).done)
            #expect(edited.text == "edited" && edited.updatedAt == moment(9) && edited.createdAt == moment(1))
            #expect(try await social.comment(id: added[0].id) == edited)

            #expect(try await social.deleteComment(id: added[0].id, by: stranger).isForbidden)
            #expect(try await social.deleteComment(id: added[0].id, by: author).done != nil)
            #expect(try await social.deleteComment(id: added[2].id, by: commenter).done != nil)
            #expect(try await social.deleteComment(id: added[2].id, by: commenter).isNotFound)
            // The review's author may not edit someone else's comment, only delete it.
            #expect(try await social.updateComment(id: added[4].id, by: author, text: "x", at: moment(9)).isForbidden)
            #expect(try await harness.reviews.review(id: review.id, viewer: nil)?.commentCount == 5)
            let left = try await social.comments(review: review.id, after: nil, limit: 10)
            #expect(left.items.map(\.id) == [1, 3, 4, 5, 6].map { added[$0].id } && left.next == nil)
        }
    }

    @Test(
        "follows: idempotent with exact counts, nil for a missing user, lists newest follow first, ties by user id",
        arguments: StoreEngine.available)
    func follows(engine: StoreEngine) async throws {
        try await withReviewStores(engine) { harness in
            let star = try await harness.makeUser("star")
            var fans: [Int64] = []
            for index in 0..<7 { fans.append(try await harness.makeUser("fan\(index)")) }
            let social = harness.social
            #expect(try await social.setFollow(true, follower: fans[0], followee: 9_999, at: moment(0)) == nil)
            for (index, fan) in fans.enumerated() {
                for _ in 0..<2 {
                    let state = try await social.setFollow(
                        true, follower: fan, followee: star, at: moment(Int64(index / 3)))
                    #expect(state == FollowState(following: true, followerCount: index + 1))
                }
            }
            _ = try await social.setFollow(true, follower: star, followee: fans[6], at: moment(5))
            _ = try await social.setFollow(true, follower: star, followee: fans[1], at: moment(5))
            let order = fans.enumerated().sorted { ($0.offset / 3, $0.element) > ($1.offset / 3, $1.element) }.map(
                \.element)
            for limit in [1, 2, 4, 10] {
                let followers = try await allPages(limit: limit) { after in
                    try await social.follows(.followers, of: star, after: after, limit: limit)
                }
                #expect(followers.map(\.id) == order, "limit \(limit)")
                let following = try await allPages(limit: limit) { after in
                    try await social.follows(.following, of: star, after: after, limit: limit)
                }
                #expect(following.map(\.id) == [fans[6], fans[1]])
            }
            let first = try await social.follows(.followers, of: star, after: nil, limit: 1)
            #expect(first.items.first?.nickname == "fan6" && first.next == TimeKey(time: moment(2), id: fans[6]))
            for _ in 0..<2 {
                #expect(
                    try await social.setFollow(false, follower: fans[6], followee: star, at: moment(9))
                        == FollowState(following: false, followerCount: 6))
            }
            #expect(
                try await social.follows(.followers, of: star, after: nil, limit: 10).items.map(\.id)
                    == Array(order.dropFirst()))
            #expect(try await social.follows(.following, of: 9_999, after: nil, limit: 10).items.isEmpty)
        }
    }
}
