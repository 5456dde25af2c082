import BurgerMapCore
import GRDB
import Synchronization

/// Read-only connections that run a read on the thread that asks for it.
///
/// A read through GRDB's async pool hops to the reader's dispatch queue and back to the
/// caller's executor: 70–110 µs for an empty read on this machine, as much as a whole nearby
/// search (`scripts/bench-ceiling`, `burgermap-bench nearby`). These connections read inside the
/// caller's task instead. They never make a caller wait: when every one is busy the read goes
/// through the pool as before, so a blocked thread can never hold up the asynchronous reads it
/// would be waiting for. Each opens on first use (SpatiaLite and the nearest-first search
/// loaded, as in the pool) and reads in its own deferred transaction (WAL: the last commit).
final class CallingThreadReaders: Sendable {
    private let path: String
    private let configuration: Configuration
    private let limit: Int
    /// Idle connections, and how many are open in all.
    private let state = Mutex<(idle: [DatabaseQueue], opened: Int)>(([], 0))

    init(path: String, configuration: Configuration, limit: Int) {
        self.path = path
        var configuration = configuration
        configuration.readonly = true
        self.configuration = configuration
        self.limit = limit
    }

    private enum Take {
        case idle(DatabaseQueue)
        case open
        case busy
    }

    /// `body`'s answer, read on the calling thread; `nil` when no connection is free. Not
    /// `isolated`, it runs without a transaction of its own (see `AppDatabase.readOneStatement`).
    func read<T>(isolated: Bool = true, _ body: (Database) throws -> T) throws -> T? {
        let take: Take = state.withLock { state in
            if let queue = state.idle.popLast() { return .idle(queue) }
            guard state.opened < limit else { return .busy }
            state.opened += 1
            return .open
        }
        let queue: DatabaseQueue
        switch take {
        case .busy: return nil
        case .idle(let idle): queue = idle
        case .open:
            do {
                queue = try DatabaseQueue(path: path, configuration: configuration)
            } catch {
                state.withLock { $0.opened -= 1 }
                throw error
            }
        }
        defer { state.withLock { $0.idle.append(queue) } }
        return .some(try isolated ? queue.read(body) : queue.unsafeRead(body))
    }
}
