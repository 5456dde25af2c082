import BurgerMapCore
import Synchronization
import Testing

/// The read-your-writes rule on its own: who counts as a recent writer, for how long, within
/// what memory; and where `LagTolerantRouter` sends a read.
@Suite("Recent writers and the lag-tolerant router")
struct RecentWritersTests {
    let start = Timestamp(milliseconds: 1_000_000)

    func at(_ milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: start.milliseconds + milliseconds) }

    /// Writers past the first window, which counts everyone.
    func writers(capacity: Int = 100) -> RecentWriters {
        RecentWriters(window: .seconds(5), capacity: capacity, startingAt: at(-10_000))
    }

    @Test("a writer counts for exactly the window after their last write")
    func window() {
        let writers = writers()
        writers.noteWrite(by: 7, at: at(0))
        #expect(writers.wroteRecently(7, at: at(0)))
        #expect(writers.wroteRecently(7, at: at(4_999)))
        #expect(!writers.wroteRecently(7, at: at(5_000)))
        #expect(!writers.wroteRecently(8, at: at(0)), "someone who did not write")
        writers.noteWrite(by: 7, at: at(3_000))
        #expect(writers.wroteRecently(7, at: at(7_999)), "a second write starts the window again")
        #expect(!writers.wroteRecently(7, at: at(8_000)))
    }

    @Test("the first window after start, and after unknown writes, counts every signed-in reader")
    func unknownWrites() {
        let writers = RecentWriters(window: .seconds(5), startingAt: start)
        #expect(writers.wroteRecently(1, at: at(4_999)))
        #expect(!writers.wroteRecently(1, at: at(5_000)))
        writers.noteUnknownWrites(at: at(20_000))
        #expect(writers.wroteRecently(2, at: at(24_999)))
        #expect(!writers.wroteRecently(2, at: at(25_000)))
    }

    @Test("writes past the window are pruned as new ones come")
    func pruning() {
        let writers = writers(capacity: 10_000)
        for user in 1...1_000 { writers.noteWrite(by: Int64(user), at: at(Int64(user))) }
        #expect(writers.count == 1_000)
        writers.noteWrite(by: 5_000, at: at(5_500))
        // Users 1…500 wrote at or before 500 ms: more than 5 s before 5,500 ms.
        #expect(writers.count == 501)
        #expect(!writers.wroteRecently(500, at: at(5_500)))
        #expect(writers.wroteRecently(501, at: at(5_500)))
        writers.noteWrite(by: 5_001, at: at(60_000))
        #expect(writers.count == 1)
    }

    @Test("over the bound, the oldest go, and while one of them is still inside its window everyone counts")
    func bound() {
        let writers = writers(capacity: 3)
        for user in 1...3 { writers.noteWrite(by: Int64(user), at: at(0)) }
        writers.noteWrite(by: 4, at: at(1_000))
        #expect(writers.count == 3)
        // User 1 was dropped inside its window: nobody may be sent to a replica until it ends.
        #expect(writers.wroteRecently(99, at: at(4_999)))
        #expect(!writers.wroteRecently(99, at: at(5_000)))
        #expect(!writers.wroteRecently(1, at: at(5_000)))
        #expect(writers.wroteRecently(4, at: at(5_999)))
        // A user writing again and again takes one place.
        for time in 0..<1_000 { writers.noteWrite(by: 4, at: at(2_000 + Int64(time))) }
        #expect(writers.count <= 3)
        #expect(writers.wroteRecently(4, at: at(7_998)))
    }

    @Test(
        "the router: anonymous to a replica, a recent writer or a new token to the primary, a failed replica to the primary"
    )
    func router() async throws {
        let environment = try TestEnvironment()
        let reads = environment.stores.lagTolerantReads
        let replicas = FakeReplicas(reads: reads)
        let writers = writers()
        let router = LagTolerantRouter(primary: reads, replicas: replicas, writers: writers)
        writers.noteWrite(by: 1, at: at(0))

        func route(_ reader: LagTolerantRouter.Reader?, at time: Timestamp) async throws -> ReadRoute {
            try await router.run(for: reader, at: time) { try await $0.userExists(id: 1) }.route
        }
        #expect(try await route(nil, at: at(0)) == .replica(0))
        #expect(try await route(.init(userID: 1, signedInAt: nil), at: at(1_000)) == .primary(.readYourWrites))
        #expect(try await route(.init(userID: 1, signedInAt: nil), at: at(5_000)) == .replica(1), "the turn moves on")
        #expect(try await route(.init(userID: 2, signedInAt: at(-4_000)), at: at(0)) == .primary(.readYourWrites))
        #expect(try await route(.init(userID: 2, signedInAt: at(-5_000)), at: at(0)) == .replica(0))
        replicas.failing.store(true, ordering: .relaxed)
        #expect(try await route(nil, at: at(0)) == .primary(.replicaFailed))
        replicas.inUse.store(false, ordering: .relaxed)
        #expect(try await route(nil, at: at(0)) == .primary(.noReplicaInUse))
        let alone = LagTolerantRouter(primary: reads)
        #expect(try await alone.run(for: nil) { _ in 1 }.route == .primary(.noReplicas))
    }
}

/// Two replicas in turn that read the given stores, or fail.
private final class FakeReplicas: ReplicaSet {
    let reads: LagTolerantReads
    let inUse = Atomic<Bool>(true)
    let failing = Atomic<Bool>(false)
    private let turn = Atomic<Int>(0)

    init(reads: LagTolerantReads) { self.reads = reads }

    func nextReplica() -> (any ReadReplica)? {
        guard inUse.load(ordering: .relaxed) else { return nil }
        let index = turn.wrappingAdd(1, ordering: .relaxed).oldValue % 2
        return Replica(index: index, reads: reads, fails: failing.load(ordering: .relaxed))
    }

    var statuses: [ReplicaStatus] { [] }

    struct Replica: ReadReplica {
        let index: Int
        let reads: LagTolerantReads
        let fails: Bool

        func run<Value: Sendable>(_ read: @escaping @Sendable (LagTolerantReads) async throws -> Value)
            async throws -> Value
        {
            if fails { throw ReplicaReadFailed(replica: index, underlying: CancellationError()) }
            return try await read(reads)
        }
    }
}
