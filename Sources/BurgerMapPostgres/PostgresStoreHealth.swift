import BurgerMap
import Logging
import PostgresNIO
import Synchronization

/// Whether the PostgreSQL server answers (`GET /health`), and the last answer of a check that
/// runs every second (`monitor`), which turns requests away with `503` while the server is gone.
public struct PostgresStoreHealth: StoreHealth {
    let client: PostgresClient
    let logger: Logger
    /// How long to wait for the answer: a server that is gone may leave a query waiting for a
    /// connection or an answer far longer than a health check may take.
    var timeout: Duration = .seconds(2)
    /// The last check's answer, shared by every copy of this value.
    private let available = Availability()

    init(client: PostgresClient, logger: Logger, timeout: Duration = .seconds(2)) {
        self.client = client
        self.logger = logger
        self.timeout = timeout
    }

    public var isAvailable: Bool { available.value.load(ordering: .relaxed) }

    /// Errors of a connection that is gone: the server went away under a query.
    public func isOutage(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed:
            return true
        default:
            return false
        }
    }

    /// Checks the server every `interval` until cancelled, logging each change.
    func monitor(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            let reachable = await isReachable()
            let was = available.value.exchange(reachable, ordering: .relaxed)
            if was != reachable {
                if reachable {
                    logger.notice("database reachable again: serving requests")
                } else {
                    logger.error("database unreachable: answering 503 until it is back")
                }
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// The last answer, in a reference all copies share.
    private final class Availability: Sendable {
        let value = Atomic<Bool>(true)
    }

    /// Answers whether `SELECT 1` comes back within the timeout.
    public func isReachable() async -> Bool {
        let client = client
        let logger = logger
        return await Self.firstAnswer(within: timeout) {
            do {
                for try await one in try await client.query("SELECT 1", logger: logger).decode(Int32.self) {
                    return one == 1
                }
                return false
            } catch {
                return false
            }
        }
    }

    /// What `operation` answers, or `false` once `timeout` has passed. The operation runs in a
    /// task of its own that is cancelled but not awaited after a timeout: postgres-nio gives up
    /// waiting for a pooled connection when cancelled, but not on a query already sent, and the
    /// caller must not wait for that.
    static func firstAnswer(within timeout: Duration, _ operation: @escaping @Sendable () async -> Bool) async -> Bool {
        let answer = Answer()
        var tasks: [Task<Void, Never>] = []
        let reachable = await withCheckedContinuation { continuation in
            answer.wait(continuation)
            tasks.append(Task { answer.give(await operation()) })
            tasks.append(
                Task {
                    try? await Task.sleep(for: timeout)
                    answer.give(false)
                })
        }
        for task in tasks { task.cancel() }
        return reachable
    }

    /// The one answer of a race between an operation and its timeout: the first to finish
    /// resumes the caller, the other finds nobody waiting.
    private final class Answer: Sendable {
        private let waiting = Mutex<CheckedContinuation<Bool, Never>?>(nil)

        func wait(_ continuation: CheckedContinuation<Bool, Never>) {
            waiting.withLock { $0 = continuation }
        }

        func give(_ value: Bool) {
            waiting.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }?.resume(returning: value)
        }
    }
}
