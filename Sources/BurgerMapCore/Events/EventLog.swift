import Foundation

/// Delivers the events of the `events` table to the service's own subscribers (notifications,
/// tile caches…), and keeps the table to its retention.
///
/// Each subscription reads the table itself from its own last id, in pages, woken by the
/// store's `EventSignal` (and by a poll, in case a wake-up was missed): events come in id order,
/// at least once, and a subscriber that is slow, throws or restarts costs the writers and the
/// other subscribers nothing. A subscriber that wants to survive a restart keeps the id of the
/// last event it handled and subscribes after it.
public final class EventLog: Sendable {
    public let store: any EventStore
    /// How long events are kept (`--event-retention`, 7 days).
    public let retention: Duration
    /// How often readers look at the table without a wake-up (a missed `NOTIFY`).
    public let pollInterval: Duration
    /// How often `run` prunes the table; `nil` never (a reader that must not lose what it reads).
    public let pruneInterval: Duration?
    /// The events a subscription reads at once.
    public static let pageSize = 256
    /// The most events one pruning statement deletes: small enough that it never holds the
    /// table (or SQLite's one writer) for long.
    public static let pruneBatch = 1_000
    private let now: @Sendable () -> Timestamp

    public init(
        store: any EventStore, retention: Duration = .seconds(604_800), pollInterval: Duration = .seconds(1),
        pruneInterval: Duration? = .seconds(60), now: @escaping @Sendable () -> Timestamp = { Timestamp.now() }
    ) {
        self.store = store
        self.retention = retention
        self.pollInterval = pollInterval
        self.pruneInterval = pruneInterval
        self.now = now
    }

    /// The events after `id`, in id order, for as long as the caller iterates.
    public func subscribe(after id: Int64) -> EventSubscription {
        EventSubscription(store: store, after: id)
    }

    /// The events written from now on.
    public func subscribeToNewEvents() async throws -> EventSubscription {
        subscribe(after: try await store.lastEventID())
    }

    /// Deletes the events older than the retention, in batches; answers how many.
    @discardableResult
    public func prune() async throws -> Int {
        let cutoff = Timestamp(milliseconds: now().milliseconds - retention.milliseconds)
        var deleted = 0
        while true {
            let batch = try await store.pruneEvents(writtenBefore: cutoff, limit: Self.pruneBatch)
            deleted += batch
            if batch < Self.pruneBatch { return deleted }
            await Task.yield()
        }
    }

    /// Runs the poll, the pruning (every `pruneInterval`) and the engine's listener until cancelled.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.store.listenForEvents() }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: self.pollInterval)
                    self.store.eventSignal.wake()
                }
            }
            if let pruneInterval = self.pruneInterval {
                group.addTask {
                    while !Task.isCancelled {
                        _ = try? await self.prune()
                        try? await Task.sleep(for: pruneInterval)
                    }
                }
            }
            await group.waitForAll()
        }
    }
}

/// The events after an id, in id order: an endless sequence that waits for new events, and ends
/// only when its task is cancelled. A store that fails (a database away) is read again at the
/// next wake-up: nothing is skipped.
public struct EventSubscription: AsyncSequence, Sendable {
    public typealias Element = RecordedEvent
    let store: any EventStore
    let after: Int64

    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, last: after, rings: store.eventSignal.rings().makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        let store: any EventStore
        /// The id of the last event handed out.
        public private(set) var last: Int64
        var rings: AsyncStream<Void>.Iterator
        var buffer: [RecordedEvent] = []
        var index = 0

        public mutating func next() async -> RecordedEvent? {
            while index == buffer.count {
                if Task.isCancelled { return nil }
                if let page = try? await store.events(after: last, limit: EventLog.pageSize), !page.isEmpty {
                    buffer = page
                    index = 0
                    break
                }
                // Nothing new (or the store failed): wait for a ring; the poll rings too.
                guard await rings.next() != nil else { return nil }
            }
            let event = buffer[index]
            index += 1
            last = event.id
            return event
        }
    }
}
