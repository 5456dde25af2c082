import Testing

@testable import BurgerMapCore

/// The core's write rules as plain functions: what both engines record and change for a write,
/// decided once (`WriteEffect`). The engines' tests (EventTests, the conformance suites) check
/// that each engine carries the decisions out.
@Suite("Write rules decided in the core")
struct WriteRulesTests {
    @Test("a block records user.blocked, then one user.unfollowed per ended follow in follower order")
    func blockEvents() {
        let ended = [
            BlockRules.EndedFollow(follower: 9, followee: 4), BlockRules.EndedFollow(follower: 4, followee: 9),
        ]
        let events = BlockRules.events(blocking: true, blocker: 4, blocked: 9, rowChanged: true, endedFollows: ended)
        #expect(events.map(\.kind) == [.userBlocked, .userUnfollowed, .userUnfollowed])
        #expect(events.map(\.actor) == [4, 4, 9])
        #expect(events.map(\.subject) == [9, 9, 4])
        // A block that was there already ends follows all the same, without a second user.blocked.
        #expect(
            BlockRules.events(blocking: true, blocker: 4, blocked: 9, rowChanged: false, endedFollows: ended).map(
                \.kind)
                == [.userUnfollowed, .userUnfollowed])
        #expect(
            BlockRules.events(blocking: false, blocker: 4, blocked: 9, rowChanged: true, endedFollows: []).map(\.kind)
                == [.userUnblocked])
        #expect(BlockRules.events(blocking: false, blocker: 4, blocked: 9, rowChanged: false, endedFollows: []).isEmpty)
    }

    @Test("a moderator's hide: the visibility event, each closed report's decision by report id, then the audit line")
    func moderatorDecision() {
        let effects = ModerationRules.moderatorDecision(
            .review(7), hidden: true, wasHidden: false, by: 3, reason: "spam", owner: 5, parent: 11,
            closed: [(report: 30, reporter: 8), (report: 12, reporter: 6), (report: 21, reporter: 9)])
        #expect(effects.events.map(\.kind) == [.reviewHidden, .reportDecided, .reportDecided, .reportDecided])
        #expect(effects.events.dropFirst().map(\.subject) == [12, 21, 30])
        #expect(effects.events.dropFirst().map(\.details.user) == [6, 9, 8])
        #expect(effects.events.first?.details.place == 11 && effects.events.first?.details.user == 5)
        #expect(
            effects.last
                == .audit(AuditRecord(moderator: 3, .hide, targetType: "review", targetID: 7, reason: "spam")))
        // Hiding hidden content records no visibility event, but closes reports and audits.
        let again = ModerationRules.moderatorDecision(
            .comment(7), hidden: true, wasHidden: true, by: 3, reason: nil, owner: 5, parent: 2, closed: [])
        #expect(again == [.audit(AuditRecord(moderator: 3, .hide, targetType: "comment", targetID: 7, reason: nil))])
    }

    @Test("reports hide a review or comment at the threshold, never a user, never with the threshold 0")
    func autoHide() throws {
        #expect(ModerationRules.countsReports(.review(1), alreadyHidden: false, threshold: 3))
        #expect(!ModerationRules.countsReports(.user(1), alreadyHidden: false, threshold: 3))
        #expect(!ModerationRules.countsReports(.comment(1), alreadyHidden: true, threshold: 3))
        #expect(!ModerationRules.countsReports(.comment(1), alreadyHidden: false, threshold: 0))
        #expect(ModerationRules.autoHide(.review(1), openReports: 2, threshold: 3, owner: 5, parent: 9) == nil)
        let effects = try #require(
            ModerationRules.autoHide(.comment(1), openReports: 3, threshold: 3, owner: 5, parent: 9))
        #expect(
            effects.first
                == .audit(
                    AuditRecord(moderator: nil, .autoHide, targetType: "comment", targetID: 1, reason: "3 reports")))
        #expect(effects.events.map(\.kind) == [.commentHidden])
        #expect(effects.events.first?.actor == nil)
    }

    @Test("a suspension ends logins and closes the user's reports; reinstating someone not suspended only audits")
    func suspension() {
        #expect(
            ModerationRules.suspension(of: 5, suspended: true, wasSuspended: false, by: 2, reason: "r") == [
                .record(DomainEvent(.accountSuspended, actor: 2, subject: 5)), .revokeLogins(user: 5),
                .closeReports(onUser: 5, .suspended, by: 2),
                .audit(AuditRecord(moderator: 2, .suspend, targetType: "user", targetID: 5, reason: "r")),
            ])
        #expect(
            ModerationRules.suspension(of: 5, suspended: false, wasSuspended: false, by: 2, reason: nil) == [
                .audit(AuditRecord(moderator: 2, .unsuspend, targetType: "user", targetID: 5, reason: nil))
            ])
        #expect(
            ModerationRules.moderatorRole(of: 5, granted: true) == [
                .audit(AuditRecord(moderator: nil, .grantModerator, targetType: "user", targetID: 5, reason: nil))
            ])
    }

    @Test("comments: their author edits them; their author or the review's deletes them")
    func commentPermissions() {
        #expect(SocialRules.mayEdit(comment: 4, user: 4))
        #expect(!SocialRules.mayEdit(comment: 4, user: 6))
        #expect(SocialRules.mayDelete(comment: 4, onReviewBy: 6, user: 6))
        #expect(SocialRules.mayDelete(comment: 4, onReviewBy: 6, user: 4))
        #expect(!SocialRules.mayDelete(comment: 4, onReviewBy: 6, user: 7))
        #expect(SocialRules.followEvent(following: true, follower: 1, followee: 2, rowChanged: false) == nil)
        #expect(
            SocialRules.followEvent(following: false, follower: 1, followee: 2, rowChanged: true)?.kind
                == .userUnfollowed)
    }

    /// The cells of random batches read back at the ladder's levels give what the batch built
    /// place by place gives: the same cells at the same level (seeded, spreads from a street to
    /// the world, counts around the cap).
    @Test(
        "an import's cells read back from the table match the batch built place by place",
        arguments: [1, 2, 3] as [UInt64])
    func cellLadder(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for spread in [0.001, 0.05, 1.0, 20.0, 180.0] {
            for count in [1, 500, 4_096, 4_097, 9_000, 70_000] {
                var built = PlaceBatchFacts()
                var keys: [Int64] = []
                for id in 0..<count {
                    let lat = max(-85, min(85, 37.5 + Double.random(in: -spread...spread, using: &random) / 2))
                    let lng = max(-180, min(180, 127 + Double.random(in: -spread...spread, using: &random)))
                    built.add(id: Int64(id), lat: lat, lng: lng)
                    keys.append(PlaceCells.key(lat: lat, lng: lng))
                }
                var read = PlaceBatchFacts()
                for level in PlaceBatchFacts.cellReadLevels {
                    let cells = Set(keys.map { PlaceCells.cell(of: $0, at: level) })
                    guard cells.count <= PlaceBatchFacts.cellReadCap else { continue }
                    for cell in cells { read.add(cell: cell, at: level) }
                    break
                }
                #expect(read.cellLevel == built.cellLevel, "spread \(spread), \(count) places")
                #expect(read.cells == built.cells, "spread \(spread), \(count) places")
            }
        }
    }
}
