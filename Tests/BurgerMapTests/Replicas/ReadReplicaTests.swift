import BurgerMapCore
import Foundation
import HummingbirdTesting
import Testing

@testable import BurgerMapPostgres

/// Read replicas with a real streaming replica (scripts/postgres's `pg_basebackup -R` of the
/// test cluster) through the real router: where a lag-tolerant read goes, what it answers, and
/// what `/metrics` counts. One at a time: they pause and stop the one replica every schema
/// shares. Lag is made for real by pausing the replica's replay; the read-your-writes window
/// runs on a test clock.
@Suite("Read replicas", .serialized)
struct ReadReplicaTests {
    /// An environment on PostgreSQL with the replica, whose schema the replica has replayed.
    func environment(maximumLag: Duration = .seconds(5), checkInterval: Duration = .seconds(3600)) async throws
        -> (TestEnvironment, PostgresReplicas)
    {
        let environment = try await TestEnvironment(
            .postgres, replicas: try TestReplica.options(maximumLag: maximumLag, checkInterval: checkInterval))
        environment.clock = TestClock()
        let engine = try #require(environment.postgres)
        try await TestReplica.waitForPrimary(engine)
        let replicas = try #require(engine.replicas)
        await replicas.checkNow()
        return (environment, replicas)
    }

    static let nearby = "/v1/places/nearby?lat=37.5&lng=127&radius_m=1000"

    /// The ids of a nearby answer, as whoever `token` names (anonymous without).
    func nearbyIDs(_ client: any TestClientProtocol, token: String? = nil) async throws -> [Int64] {
        let response = try await client.send(.get, Self.nearby, token: token)
        #expect(response.status == .ok)
        let items = try #require(try json(response)["items"] as? [[String: Any]])
        return items.compactMap { ($0["id"] as? NSNumber)?.int64Value }
    }

    func addPlace(_ client: any TestClientProtocol, token: String, name: String) async throws -> Int64 {
        let response = try await client.send(
            .post, "/v1/places", json: ["name": name, "lat": 37.5, "lng": 127.0], token: token)
        #expect(response.status == .created)
        return try #require((try json(response)["id"] as? NSNumber)?.int64Value)
    }

    @Test("an anonymous nearby search is answered by the replica once the write is replayed there")
    func replicaAnswersAfterReplay() async throws {
        let (environment, _) = try await environment()
        let clock = try #require(environment.clock)
        try await environment.withClient { client in
            let token = try tokens(try await client.register(email: "ana@example.com", nickname: "ana")).access
            let place = try await addPlace(client, token: token, name: "Replayed Burger")
            try await TestReplica.waitForPrimary(try #require(environment.postgres))
            // Past the first window after start, the writer's, and the new token's.
            clock.advance(milliseconds: 6_000)
            let before = try await ReadCounts(client)
            #expect(try await nearbyIDs(client) == [place])
            #expect(try await nearbyIDs(client, token: token) == [place])
            let counted = try await ReadCounts(client).since(before)
            #expect(counted.replica == 2 && counted.primary.isEmpty, "\(counted)")
        }
    }

    @Test("a writer's signed-in reads see their write at once while the replica lags; others' do not, until it replays")
    func readYourWrites() async throws {
        // A lag limit no pause reaches here: the lagging replica stays in use.
        let (environment, replicas) = try await environment(maximumLag: .seconds(3600))
        let clock = try #require(environment.clock)
        let engine = try #require(environment.postgres)
        try await environment.withClient { client in
            clock.advance(milliseconds: 6_000)
            try await TestReplica.whilePaused {
                // A new account exists on the primary only: its own token (issued just now) reads
                // its profile from the primary; anonymous, the replica does not know it yet.
                let body = try await client.register(email: "mina@example.com", nickname: "mina")
                let token = try tokens(body).access
                let id = try #require(((body["user"] as? [String: Any])?["id"] as? NSNumber)?.int64Value)
                #expect(try await client.send(.get, "/v1/users/\(id)", token: token).status == .ok)
                #expect(try await client.send(.get, "/v1/users/\(id)").status == .notFound)
                #expect(try await client.send(.get, "/v1/users/\(id)/reviews", token: token).status == .ok)

                clock.advance(milliseconds: 6_000)
                let place = try await addPlace(client, token: token, name: "Own Write Burger")
                await replicas.checkNow()
                #expect(replicas.statuses[0].isInUse, "\(replicas.statuses)")
                let before = try await ReadCounts(client)
                #expect(try await nearbyIDs(client, token: token) == [place], "the writer, from the primary")
                #expect(try await nearbyIDs(client) == [], "anyone else, from the replica that lags")
                var counted = try await ReadCounts(client).since(before)
                #expect(counted.replica == 1 && counted.primary == ["read_your_writes": 1], "\(counted)")

                clock.advance(milliseconds: 5_000)
                #expect(try await nearbyIDs(client, token: token) == [], "the window is over: the replica again")
                counted = try await ReadCounts(client).since(before)
                #expect(counted.replica == 2, "\(counted)")
            }
            try await TestReplica.waitForPrimary(engine)
            let before = try await ReadCounts(client)
            let ids = try await nearbyIDs(client)
            let counted = try await ReadCounts(client).since(before)
            #expect(ids.count == 1 && counted.replica == 1, "replayed: everyone sees it, from the replica (\(counted))")
        }
    }

    @Test(
        "a replica lagging beyond --max-replica-lag is skipped, its reads answered by the primary, and used once caught up"
    )
    func laggingReplicaSkipped() async throws {
        // Any lag is too much: the paused replica's is above zero as soon as it received a write
        // it has not replayed.
        let (environment, replicas) = try await environment(maximumLag: .zero)
        let clock = try #require(environment.clock)
        let engine = try #require(environment.postgres)
        try await environment.withClient { client in
            clock.advance(milliseconds: 6_000)
            let token = try tokens(try await client.register(email: "sora@example.com", nickname: "sora")).access
            clock.advance(milliseconds: 6_000)
            let place = try await TestReplica.whilePaused {
                let place = try await addPlace(client, token: token, name: "Lagging Burger")
                try await TestReplica.waitForPrimary(engine, receivedOnly: true)
                await replicas.checkNow()
                let status = replicas.statuses[0]
                #expect(!status.isInUse && status.isReachable && (status.lagSeconds ?? 0) > 0, "\(status)")
                let before = try await ReadCounts(client)
                #expect(try await nearbyIDs(client) == [place], "the primary answers")
                let counted = try await ReadCounts(client).since(before)
                #expect(counted.replica == 0 && counted.primary == ["no_replica_in_use": 1], "\(counted)")
                return place
            }
            try await TestReplica.waitForPrimary(engine)
            try await TestReplica.waitUntil(inUse: true, replicas)
            let before = try await ReadCounts(client)
            #expect(try await nearbyIDs(client) == [place])
            #expect(try await ReadCounts(client).since(before).replica == 1, "caught up: in use again")
        }
    }

    @Test("a stopped replica's reads are answered by the primary; started again, it is used again")
    func stoppedReplica() async throws {
        // The monitor as it runs in `serve` (every second), faster: it notices the stop.
        let (environment, replicas) = try await environment(checkInterval: .milliseconds(100))
        let clock = try #require(environment.clock)
        let engine = try #require(environment.postgres)
        try await environment.withClient { client in
            let token = try tokens(try await client.register(email: "jun@example.com", nickname: "jun")).access
            let place = try await addPlace(client, token: token, name: "Stopped Burger")
            try await TestReplica.waitForPrimary(engine)
            clock.advance(milliseconds: 6_000)
            try await TestReplica.waitUntil(inUse: true, replicas)
            var before = try await ReadCounts(client)
            #expect(try await nearbyIDs(client) == [place])
            #expect(try await ReadCounts(client).since(before).replica == 1)

            try TestReplica.control("stop")
            do {
                before = try await ReadCounts(client)
                // At once: the read either finds the replica down already or fails there and
                // goes to the primary.
                for _ in 0..<3 { #expect(try await nearbyIDs(client) == [place]) }
                let counted = try await ReadCounts(client).since(before)
                #expect(counted.replica == 0 && counted.primary.values.reduce(0, +) == 3, "\(counted)")
                #expect(Set(counted.primary.keys).isSubset(of: ["replica_failed", "no_replica_in_use"]))
                #expect(!replicas.statuses[0].isReachable)
            } catch {
                try? TestReplica.control("start")
                throw error
            }
            try TestReplica.control("start")
            try await TestReplica.waitUntil(inUse: true, replicas)
            before = try await ReadCounts(client)
            #expect(try await nearbyIDs(client) == [place])
            #expect(try await ReadCounts(client).since(before).replica == 1, "started again: in use")
        }
    }
}
