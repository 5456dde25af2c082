import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The events table as a subscriber sees it: `(kind, actor, subject)` of each event, in order.
struct SeenEvent: Equatable, CustomStringConvertible {
    var kind: EventKind
    var actor: Int64?
    var subject: Int64

    init(_ kind: EventKind, _ actor: Int64?, _ subject: Int64) {
        self.kind = kind
        self.actor = actor
        self.subject = subject
    }

    var description: String { "\(kind.rawValue) \(actor.map(String.init) ?? "-") \(subject)" }
}

extension TestEnvironment {
    /// Every event after `id` up to the newest, as a subscriber gets them while the event log
    /// runs (on PostgreSQL its poll wakes a subscriber that waits out a hole: other tests'
    /// transactions on the cluster may hold one up for a moment).
    func events(after id: Int64 = 0) async throws -> [RecordedEvent] {
        let last = try await stores.events.lastEventID()
        guard last > id else { return [] }
        return await Self.subscribe(stores.events, after: id) { $0.id >= last }
    }

    /// The events after `id` up to the first for which `isLast` holds.
    static func subscribe(
        _ store: any EventStore, after id: Int64, until isLast: (RecordedEvent) -> Bool
    ) async -> [RecordedEvent] {
        let log = EventLog(store: store, pollInterval: .milliseconds(20), pruneInterval: nil)
        let running = Task { await log.run() }
        defer { running.cancel() }
        var seen: [RecordedEvent] = []
        for await event in log.subscribe(after: id) {
            seen.append(event)
            if isLast(event) { break }
        }
        return seen
    }
}

@Suite("Events: one for every write, in its transaction", .timeLimit(.minutes(10)))
struct EventTests {
    @Test(
        "the writes of a day on the service each record their event, in order, and writes that change nothing none",
        arguments: StoreEngine.available)
    func everyWrite(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let moderator = try await client.member("mod")
            #expect(
                try await environment.stores.moderation.setModerator(
                    email: "mod@example.com", granted: true, at: .now()) == .done)
            let start = try await environment.stores.events.lastEventID()

            let place = try await client.addPlace("Event Burger", token: alice.token)
            #expect(
                try await client.send(.patch, "/v1/places/\(place)", json: ["lat": 37.6], token: alice.token).status
                    == .ok)
            let review = try #require(
                (try json(try await client.postReview(place: place, token: bob.token))["id"] as? NSNumber)?.int64Value)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: alice.token).status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: alice.token).status == .ok)
            #expect(try await client.send(.delete, "/v1/reviews/\(review)/like", token: alice.token).status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/bookmark", token: alice.token).status == .ok)
            let comment = try #require(
                (try json(
                    try await client.send(
                        .post, "/v1/reviews/\(review)/comments", json: ["text": "Looks good"], token: alice.token))[
                        "id"] as? NSNumber)?.int64Value)
            #expect(
                try await client.send(
                    .patch, "/v1/comments/\(comment)", json: ["text": "Looks great"], token: alice.token
                )
                .status == .ok)
            #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: bob.token).status == .ok)
            #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: bob.token).status == .ok)
            #expect(try await client.send(.put, "/v1/users/\(bob.id)/block", token: alice.token).status == .ok)
            #expect(try await client.send(.delete, "/v1/users/\(bob.id)/block", token: alice.token).status == .ok)
            #expect(try await client.send(.delete, "/v1/users/\(bob.id)/block", token: alice.token).status == .ok)
            #expect(
                try await client.send(.patch, "/v1/reviews/\(review)", json: ["rating": 4], token: bob.token).status
                    == .ok)
            #expect(
                try await client.send(.put, "/v1/moderation/reviews/\(review)/hidden", token: moderator.token).status
                    == .ok)
            #expect(
                try await client.send(.put, "/v1/moderation/reviews/\(review)/hidden", token: moderator.token).status
                    == .ok)
            #expect(
                try await client.send(.delete, "/v1/moderation/reviews/\(review)/hidden", token: moderator.token)
                    .status == .ok)
            #expect(try await client.send(.delete, "/v1/comments/\(comment)", token: alice.token).status == .noContent)
            #expect(try await client.send(.delete, "/v1/reviews/\(review)", token: bob.token).status == .noContent)
            #expect(
                try await client.send(.patch, "/v1/users/me", json: ["bio": "Burgers."], token: bob.token).status
                    == .ok)
            #expect(
                try await client.send(
                    .put, "/v1/moderation/users/\(bob.id)/suspension", json: ["reason": "spam"], token: moderator.token
                ).status == .ok)
            #expect(
                try await client.send(.delete, "/v1/moderation/users/\(bob.id)/suspension", token: moderator.token)
                    .status == .ok)
            #expect(try await client.send(.delete, "/v1/places/\(place)", token: alice.token).status == .noContent)

            let events = try await environment.events(after: start)
            #expect(
                events.map { SeenEvent($0.event.kind, $0.event.actor, $0.event.subject) } == [
                    SeenEvent(.placeCreated, alice.id, place),
                    SeenEvent(.placeEdited, alice.id, place),
                    SeenEvent(.reviewCreated, bob.id, review),
                    SeenEvent(.reviewLiked, alice.id, review),
                    SeenEvent(.reviewUnliked, alice.id, review),
                    SeenEvent(.reviewBookmarked, alice.id, review),
                    SeenEvent(.commentCreated, alice.id, comment),
                    SeenEvent(.commentEdited, alice.id, comment),
                    SeenEvent(.userFollowed, bob.id, alice.id),
                    SeenEvent(.userBlocked, alice.id, bob.id),
                    SeenEvent(.userUnfollowed, bob.id, alice.id),
                    SeenEvent(.userUnblocked, alice.id, bob.id),
                    SeenEvent(.reviewEdited, bob.id, review),
                    SeenEvent(.reviewHidden, moderator.id, review),
                    SeenEvent(.reviewUnhidden, moderator.id, review),
                    SeenEvent(.commentDeleted, alice.id, comment),
                    SeenEvent(.reviewDeleted, bob.id, review),
                    SeenEvent(.profileChanged, bob.id, bob.id),
                    SeenEvent(.accountSuspended, moderator.id, bob.id),
                    SeenEvent(.accountReinstated, moderator.id, bob.id),
                    SeenEvent(.placeRemoved, alice.id, place),
                ])
            // Ids grow; the details name the others involved and nothing private.
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.id < $1.id })
            let byKind = Dictionary(events.map { ($0.event.kind, $0.event.details) }) { first, _ in first }
            #expect(byKind[.reviewCreated]?.place == place)
            #expect(byKind[.reviewLiked]?.user == bob.id)
            #expect(byKind[.commentCreated]?.review == review && byKind[.commentCreated]?.user == bob.id)
            #expect(byKind[.reviewHidden]?.user == bob.id && byKind[.reviewHidden]?.place == place)
            let edited = try #require(byKind[.placeEdited]?.bounds)
            #expect(edited[1] == 37.5 && edited[3] == 37.6 && edited[0] == 127.0 && edited[2] == 127.0)
            for event in events {
                #expect(!event.event.details.json.contains("@"))
                #expect(!event.event.details.json.contains("password"))
            }
        }
    }

    @Test(
        "an import records one event for its places, a repeat of it none, and removing its source one",
        arguments: StoreEngine.available)
    func imports(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let file = try environment.file(
            "places.csv",
            """
            name,lat,lng,external_id
            North,37.6,127.1,n
            South,37.4,126.9,s
            """)
        let start = try await environment.stores.events.lastEventID()
        _ = try await environment.load(file, source: "city")
        _ = try await environment.load(file, source: "city")
        let removed = try await environment.stores.places.removePlaceSource("city")
        #expect(removed.deleted == 2)
        let events = try await environment.events(after: start)
        #expect(events.map(\.event.kind) == [.placesImported, .placesRemoved])
        for event in events {
            #expect(event.event.actor == nil)
            #expect(event.event.details.source == "city" && event.event.details.count == 2)
            #expect(event.event.details.bounds == [126.9, 37.4, 127.1, 37.6])
            #expect(event.event.details.places?.count == 2)
        }
    }

    @Test(
        "the notification worker records one notification.updated per group a batch changes, and none for a batch that changes no group",
        arguments: StoreEngine.available)
    func notificationUpdated(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            let place = try await client.addPlace("Notified Burger", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)
            try await environment.settleNotifications()
            let start = try await environment.stores.events.lastEventID()

            // Two likes in one batch join one group of Alice's: one event, by no one, about the group.
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: bob.token).status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: carol.token).status == .ok)
            try await environment.settleNotifications()
            let groups = try await environment.stores.notifications.notifications(
                for: alice.id, filter: NotificationFilter(), before: nil, limit: 10)
            #expect(groups.count == 1)
            let group = try #require(groups.first)
            #expect(group.type == .like && group.count == 2)
            let added = try await environment.events(after: start)
            #expect(
                added.map { SeenEvent($0.event.kind, $0.event.actor, $0.event.subject) } == [
                    SeenEvent(.reviewLiked, bob.id, review),
                    SeenEvent(.reviewLiked, carol.id, review),
                    SeenEvent(.notificationUpdated, nil, group.rowID),
                ])
            let firstUpdate = try #require(added.last)
            #expect(firstUpdate.event.details == EventDetails(user: alice.id))
            #expect(group.latestEventID == firstUpdate.id && group.changedEventID == firstUpdate.id)

            // A retraction changes the group too (its latest addition stays); Alice's like of her
            // own review changes no group.
            #expect(try await client.send(.delete, "/v1/reviews/\(review)/like", token: bob.token).status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: alice.token).status == .ok)
            try await environment.settleNotifications()
            let retracted = try await environment.events(after: firstUpdate.id)
            #expect(
                retracted.map { SeenEvent($0.event.kind, $0.event.actor, $0.event.subject) } == [
                    SeenEvent(.reviewUnliked, bob.id, review),
                    SeenEvent(.reviewLiked, alice.id, review),
                    SeenEvent(.notificationUpdated, nil, group.rowID),
                ])
            let secondUpdate = try #require(retracted.last)
            #expect(secondUpdate.event.details == EventDetails(user: alice.id))
            let changed = try #require(
                try await environment.stores.notifications.notificationGroup(rowID: group.rowID))
            #expect(changed.count == 1)
            #expect(changed.latestEventID == firstUpdate.id && changed.changedEventID == secondUpdate.id)

            // Nothing left to apply: no event.
            try await environment.settleNotifications()
            #expect(try await environment.stores.events.lastEventID() == secondUpdate.id)
        }
    }

    @Test("a write that rolls back records no event", arguments: StoreEngine.available)
    func rollback(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Rollback Burger", token: alice.token)
            let start = try await environment.stores.events.lastEventID()
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                _ = try await environment.stores.reviews.createReview(
                    ReviewDraft(placeID: place, authorID: alice.id, rating: 5, text: "never stored"), photos: [],
                    idempotency: nil, at: .now(), beforeCommit: { _ in throw Refused() })
            }
            #expect(try await environment.stores.events.lastEventID() == start)
            #expect(try await environment.events(after: start).isEmpty)
            // The next write's event follows, and a reader after `start` sees it alone.
            #expect(
                try await client.send(.patch, "/v1/users/me", json: ["bio": "after"], token: alice.token).status == .ok)
            #expect(try await environment.events(after: start).map(\.event.kind) == [.profileChanged])
        }
    }

    @Test(
        "pruning deletes the events older than the retention, in batches, and keeps the rest",
        arguments: StoreEngine.available)
    func retention(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let alice = try await environment.stores.accounts.createUser(
            email: "alice@example.com", passwordHash: "x", nickname: "alice", at: .now())
        // Three profile changes a second apart, at times the test chooses.
        for (index, bio) in ["one", "two", "three"].enumerated() {
            _ = try await environment.stores.accounts.updateProfile(
                id: alice.id, nickname: nil, bio: bio, at: Timestamp(milliseconds: 1_000_000 + Int64(index) * 1000))
        }
        let written = try await environment.events()
        #expect(written.map(\.time.milliseconds) == [1_000_000, 1_001_000, 1_002_000])
        // A clock seven days and one millisecond after the second: the first two are older than
        // the retention.
        let now = Timestamp(milliseconds: 1_001_000 + 604_800_000 + 1)
        let log = EventLog(store: environment.stores.events, now: { now })
        #expect(try await log.prune() == 2)
        #expect(try await environment.events().map(\.id) == [written[2].id])
        #expect(try await log.prune() == 0)
    }
}

@Suite("Event payloads")
struct EventPayloadTests {
    @Test("a payload is JSON that Foundation reads back to the same details, whatever a source name holds")
    func roundTrip() throws {
        let details = EventDetails(
            place: 7, review: -3, user: 42, report: 9, decision: "hidden", source: "a \"b\" \\ c\n\t\u{01}é🍔",
            count: 3, bounds: [126.9, -37.4, 127.000001, 1e-7], places: [1, 2, 3])
        let text = details.json
        #expect(EventDetails(json: text) == details)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(
            object.keys.sorted() == [
                "bounds", "count", "decision", "place", "places", "report", "review", "source", "user",
            ])
        #expect(EventDetails().json == "{}")
        #expect(EventDetails(user: 5).json == #"{"user":5}"#)
    }
}
