import BurgerMapCore
import Foundation
import HummingbirdTesting
import Testing

@testable import BurgerMap

@Suite("Notifications: the live stream (Server-Sent Events)", .timeLimit(.minutes(10)))
struct NotificationStreamTests {
    @Test(
        "a stream gets each changed group as it happens, resumes after Last-Event-ID, opens by one-use ticket, and keeps four per user",
        arguments: StoreEngine.available)
    func liveAndResumed(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withRunningService { port, client, dependencies in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            let place = try await client.addPlace("Stream Burger", token: alice.token)
            let review = try await client.reviewID(place: place, token: alice.token)

            let stream = try await EventStreamClient.open(port: port, token: alice.token)
            #expect(stream.status == .ok)
            #expect(stream.headers.first(name: "Content-Type")?.hasPrefix("text/event-stream") == true)
            #expect(stream.headers.first(name: "X-Accel-Buffering") == "no")
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: bob.token).status == .ok)
            let liked = try #require(try await stream.nextEvent())
            #expect(liked.event == "notification")
            let likedItem = try liked.json
            #expect(likedItem["type"] as? String == "like")
            #expect((likedItem["count"] as? NSNumber)?.intValue == 1)
            #expect(liked.id == (likedItem["id"] as? NSNumber).map { "\($0)" })
            _ = try await client.commentID(review: review, text: "On my way", token: bob.token)
            let commented = try #require(try await stream.nextEvent())
            #expect(try commented.json["type"] as? String == "comment")
            let listed = try await client.notifications(token: alice.token).1["items"] as? [[String: Any]]
            #expect(listed?.compactMap { ($0["id"] as? NSNumber).map { "\($0)" } } == [commented.id, liked.id])
            await stream.close()

            // Missed while away: sent first on reconnecting, and nothing from before.
            #expect(try await client.send(.put, "/v1/users/\(alice.id)/follow", token: carol.token).status == .ok)
            let resumed = try await EventStreamClient.open(port: port, token: alice.token, lastEventID: commented.id)
            let missed = try #require(try await resumed.nextEvent())
            #expect(try missed.json["type"] as? String == "follow")
            // An unlike changes the group; when it empties, the stream says so.
            #expect(try await client.send(.delete, "/v1/reviews/\(review)/like", token: bob.token).status == .ok)
            let removed = try #require(try await resumed.nextEvent())
            #expect(removed.event == "notification_removed")
            #expect(try removed.json["group_key"] as? String == "like-review-\(review)")
            await resumed.close()

            // A browser's EventSource sends no header: a one-use ticket instead.
            let ticket = try json(try await client.send(.post, "/v1/streaming/tickets", token: alice.token))
            let text = try #require(ticket["ticket"] as? String)
            let byTicket = try await EventStreamClient.open(port: port, path: "/v1/streaming?ticket=\(text)")
            #expect(byTicket.status == .ok)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/like", token: carol.token).status == .ok)
            #expect(try #require(try await byTicket.nextEvent()).event == "notification")
            let reused = try await EventStreamClient.open(port: port, path: "/v1/streaming?ticket=\(text)")
            #expect(reused.status == .unauthorized)
            await reused.close()
            await byTicket.close()

            // An id older than the log keeps: the client must reload its list.
            _ = try await dependencies.stores.events.pruneEvents(
                writtenBefore: Timestamp(milliseconds: Timestamp.now().milliseconds + 60_000), limit: 100_000)
            #expect(try await client.send(.put, "/v1/reviews/\(review)/bookmark", token: carol.token).status == .ok)
            let stale = try await EventStreamClient.open(port: port, token: alice.token, lastEventID: "1")
            #expect(try #require(try await stale.nextEvent()).event == "reset")
            await stale.close()

            // A fifth stream of one user closes the oldest.
            var open: [EventStreamClient] = []
            for _ in 0..<5 { open.append(try await EventStreamClient.open(port: port, token: alice.token)) }
            #expect(try await open[0].nextEvent() == nil)
            for stream in open { await stream.close() }
        }
    }

    @Test(
        "beyond --max-streams a new stream is 503 with Retry-After; a stream needs a user",
        arguments: StoreEngine.available)
    func limits(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.notifications.maxStreams = 1
        try await environment.withRunningService { port, client, _ in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let anonymous = try await EventStreamClient.open(port: port)
            #expect(anonymous.status == .unauthorized)
            await anonymous.close()
            let first = try await EventStreamClient.open(port: port, token: alice.token)
            #expect(first.status == .ok)
            let second = try await EventStreamClient.open(port: port, token: bob.token)
            #expect(second.status == .serviceUnavailable)
            #expect(second.headers.first(name: "Retry-After") == "10")
            #expect(try await second.body().contains("\"code\":\"service_unavailable\""))
            await second.close()
            await first.close()
        }
    }

    @Test("heartbeats keep a quiet stream open past the idle timeout", arguments: StoreEngine.available)
    func heartbeats(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        environment.configuration.notifications.heartbeat = .milliseconds(100)
        var limits = ConnectionLimits()
        limits.idleTimeout = .milliseconds(500)
        try await environment.withRunningService(limits: limits) { port, _, dependencies in
            // No request on the test client's connection, which the short idle timeout closes
            // (under load, before its first request): the users by the store, the token by the
            // service's own signer.
            let alice = try await environment.stores.accounts.createUser(
                email: "alice@example.com", passwordHash: "-", nickname: "alice", at: .now())
            let bob = try await environment.stores.accounts.createUser(
                email: "bob@example.com", passwordHash: "-", nickname: "bob", at: .now())
            let token = try await dependencies.accounts.accessTokens.issue(for: alice.id)
            let stream = try await EventStreamClient.open(port: port, token: token)
            let started = ContinuousClock.now
            var beats = 0
            // Heartbeats until well past the idle timeout (each read fails after 10 s of silence).
            while beats < 3 || ContinuousClock.now - started < .milliseconds(1_200) {
                let event = try #require(try await stream.next())
                #expect(event.comment == "heartbeat")
                beats += 1
            }
            _ = try await environment.stores.social.setFollow(true, follower: bob.id, followee: alice.id, at: .now())
            #expect(try #require(try await stream.nextEvent()).event == "notification")
            await stream.close()
        }
    }
}
