import BurgerMapCore
import Logging
import PostgresNIO
import Synchronization

/// Checks one replica every second on a connection of its own (as `PostgresStoreHealth` checks
/// the primary: a pool whose connections are all busy must not look like a replica that is
/// gone), and keeps the answer that routing reads per request: in use or skipped.
///
/// A replica is in use when it answers, is a standby (`pg_is_in_recovery()`: a promoted one
/// goes its own way), replays a stream (a WAL receiver runs: one cut off from its primary would
/// say it has replayed everything it received, forever), and lags no more than the maximum.
/// Its lag is 0 when it has replayed every byte it received, else how long the oldest WAL it
/// has not replayed may have waited (`PostgresReplayLag`). Reads that wait on a replica found down are
/// released at once (`whileInUse`): the pool would keep them waiting for a connection that may
/// not come back, or for a connection attempt to a host that does not answer (10 s).
final class PostgresReplicaMonitor: Sendable {
    let index: Int
    let maximumLag: Duration
    let timeout: Duration
    private var maximumLagSeconds: Double { maximumLag / .seconds(1) }
    private let probe: PostgresStoreHealth.Probe
    private let logger: Logger
    /// Read per request: a lock-free flag.
    private let inUse = Atomic<Bool>(false)
    private let state = Mutex(State())
    /// The origin of the checks' times (`PostgresReplayLag` works in seconds since).
    private let started = ContinuousClock.now

    struct State {
        var status = ReplicaStatus(isReachable: false, lagSeconds: nil, isInUse: false)
        var timeoutsInARow = 0
        var lag = PostgresReplayLag()
        /// What to do when the replica is found down: release the reads waiting on it.
        var onDown: [UInt64: @Sendable () -> Void] = [:]
        var nextWaiter: UInt64 = 0
        /// Why it was last skipped (logged once per change).
        var reason: String? = "not checked yet"
    }

    /// The replica's answer to one check.
    struct Sample: Sendable, Equatable {
        var isStandby: Bool
        /// How far it has received and replayed WAL (byte positions; `nil` before any stream).
        var received: Int64?
        var replayed: Int64?
        /// The age of the last transaction it replayed (seconds; `nil` before any).
        var lastCommitAge: Double?
        var receivesStream: Bool
    }

    init(
        index: Int, configuration: PostgresConnection.Configuration, maximumLag: Duration,
        timeout: Duration = .seconds(2), logger: Logger
    ) {
        self.index = index
        self.maximumLag = maximumLag
        self.timeout = timeout
        var configuration = configuration
        configuration.options.connectTimeout = .init(timeout)
        probe = PostgresStoreHealth.Probe(configuration: configuration, logger: logger)
        self.logger = logger
    }

    var isInUse: Bool { inUse.load(ordering: .relaxed) }

    var status: ReplicaStatus { state.withLock { $0.status } }

    /// Checks every `interval` until cancelled.
    func run(every interval: Duration) async {
        while !Task.isCancelled {
            await check()
            try? await Task.sleep(for: interval)
        }
        await probe.close()
    }

    /// One check: the replica's lag, or that it did not answer.
    func check() async {
        let checkedAt = (ContinuousClock.now - started) / .seconds(1)
        let answer = await PostgresStoreHealth.firstAnswer(within: timeout, onTimeout: Answer.timedOut) {
            await self.sample()
        }
        switch answer {
        case .sampled(let sample):
            let replayLag = state.withLock { state in
                state.lag.update(
                    at: checkedAt, received: sample.received, replayed: sample.replayed,
                    lastCommitAge: sample.lastCommitAge)
            }
            let lag = sample.receivesStream ? replayLag : nil
            let lagging = lag.map { $0 > maximumLagSeconds } ?? true
            let reason: String? =
                !sample.isStandby
                ? "not a standby (promoted, or not a replica)"
                : !sample.receivesStream
                    ? "no WAL stream from its primary"
                    : lag == nil ? "its lag is unknown" : lagging ? "lagging beyond --max-replica-lag" : nil
            update(ReplicaStatus(isReachable: true, lagSeconds: lag, isInUse: reason == nil), reason: reason)
        case .failed(let error):
            await probe.close()
            update(ReplicaStatus(isReachable: false, lagSeconds: nil, isInUse: false), reason: "unreachable: \(error)")
        case .timedOut:
            await probe.close()
            let timeouts = state.withLock { state in
                state.timeoutsInARow += 1
                return state.timeoutsInARow
            }
            // One slow answer is not an outage; two in a row are (as for the primary).
            if timeouts >= 2 {
                update(
                    ReplicaStatus(isReachable: false, lagSeconds: nil, isInUse: false),
                    reason: "no answer within \(timeout)")
            }
        }
    }

    /// Takes the replica out of use until the next good check (a read lost its connection).
    func markDown(_ error: any Error) {
        update(ReplicaStatus(isReachable: false, lagSeconds: nil, isInUse: false), reason: "a read failed: \(error)")
    }

    private func update(_ status: ReplicaStatus, reason: String?) {
        inUse.store(status.isInUse, ordering: .relaxed)
        let (released, changed) = state.withLock { state in
            state.status = status
            if status.isReachable { state.timeoutsInARow = 0 }
            let changed = (state.reason == nil) != (reason == nil)
            state.reason = reason
            guard !status.isInUse else { return ([@Sendable () -> Void](), changed) }
            defer { state.onDown = [:] }
            return (Array(state.onDown.values), changed)
        }
        for release in released { release() }
        guard changed else { return }
        if let reason {
            logger.warning("read replica skipped: \(reason)", metadata: ["replica": "\(index)"])
        } else {
            logger.notice(
                "read replica in use", metadata: ["replica": "\(index)", "lag_s": "\(status.lagSeconds ?? 0)"])
        }
    }

    /// What `body` answers, or `nil` if the replica is found down (or out of use) first; `body`
    /// runs in a task of its own that is then cancelled, not awaited.
    func whileInUse<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value? {
        let answer = FirstAnswer<Value?>()
        return await withCheckedContinuation { continuation in
            answer.wait(continuation)
            let task = TaskBox()
            let waiter: UInt64? = state.withLock { state in
                guard state.status.isInUse else { return nil }
                let id = state.nextWaiter
                state.nextWaiter += 1
                state.onDown[id] = {
                    answer.give(nil)
                    task.cancel()
                }
                return id
            }
            guard let waiter else { return answer.give(nil) }
            task.start {
                let value = await body()
                answer.give(value)
                _ = self.state.withLock { $0.onDown.removeValue(forKey: waiter) }
            }
        }
    }

    private enum Answer: Sendable {
        case sampled(Sample)
        case failed(String)
        case timedOut
    }

    private func sample() async -> Answer {
        do {
            return try await probe.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT pg_is_in_recovery(),
                        (pg_last_wal_receive_lsn() - '0/0'::pg_lsn)::int8,
                        (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::int8,
                        EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8,
                        EXISTS (SELECT 1 FROM pg_stat_wal_receiver)
                    """, logger: logger)
                for try await (standby, received, replayed, commitAge, streaming) in rows.decode(
                    (Bool, Int64?, Int64?, Double?, Bool).self)
                {
                    return .sampled(
                        Sample(
                            isStandby: standby, received: received, replayed: replayed, lastCommitAge: commitAge,
                            receivesStream: streaming))
                }
                return .failed("no answer")
            }
        } catch {
            return .failed(PostgresEngineError.serverMessage(error)?.message ?? "\(error)")
        }
    }
}

/// The one answer of a race: the first `give` resumes the waiting caller, later ones find
/// nobody waiting.
final class FirstAnswer<Value: Sendable>: Sendable {
    private let waiting = Mutex<CheckedContinuation<Value, Never>?>(nil)

    func wait(_ continuation: CheckedContinuation<Value, Never>) {
        waiting.withLock { $0 = continuation }
    }

    func give(_ value: Value) {
        waiting.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }?.resume(returning: value)
    }
}

/// A task that may be cancelled before it is started (it then starts cancelled).
final class TaskBox: Sendable {
    private let state = Mutex<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    func start(_ body: @escaping @Sendable () async -> Void) {
        let task = Task { await body() }
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            return state.task
        }?.cancel()
    }
}
