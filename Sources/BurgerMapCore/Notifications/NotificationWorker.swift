/// Turns the event log into notification groups: reads the events after its progress, asks
/// `NotificationRules` what each means, and has the store apply a batch and move the progress
/// in one transaction. Each batch is applied exactly once whatever happens: a restart resumes
/// from the stored progress, and when several instances run a worker, the one whose progress is
/// stale is refused and reads on from the winner's.
public final class NotificationWorker: Sendable {
    let store: any NotificationStore
    let events: EventLog
    /// How long the worker lets writes gather after a wake-up before it reads them: one
    /// transaction then takes a burst of likes instead of one each. Measured with
    /// scripts/bench-likes (50 likers): applying each like at once cost a fifth of the like
    /// throughput on both engines (0.78× on SQLite, 0.72× on PostgreSQL); one batch per 10 ms
    /// at most keeps a like's notification well inside the 50 ms a stream's frame may take.
    let gathering: Duration
    /// The least time between two batches while writes keep coming: under load a batch then
    /// takes 50 ms of likes (about a hundred at the measured rates) in one transaction; a quiet
    /// service's write still waits only `gathering`.
    let busyInterval: Duration
    /// The events of one batch from which the worker takes the service to be busy.
    static let busyBatch = 16
    /// Called after each batch that changed something (the push deliveries look for work then).
    let applied: @Sendable () -> Void

    public init(
        store: any NotificationStore, events: EventLog, gathering: Duration = .milliseconds(10),
        busyInterval: Duration = .milliseconds(50), applied: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.events = events
        self.gathering = gathering
        self.busyInterval = busyInterval
        self.applied = applied
    }

    /// Where the worker stands: the events it has read through (`read`), and the progress the
    /// store holds (`stored`, never ahead of `read`: events that changed nothing are passed
    /// in memory only, and stored with the next batch that changes something).
    public struct Position: Sendable, Equatable {
        public var read: Int64
        public var stored: Int64
    }

    /// Runs until cancelled; a database that fails is tried again at the next wake-up.
    public func run() async {
        var rings = events.store.eventSignal.rings().makeAsyncIterator()
        var position: Position?
        var lastPrune = ContinuousClock.now
        while !Task.isCancelled {
            do {
                if position == nil {
                    let stored = try await store.notificationProgress()
                    position = Position(read: stored, stored: stored)
                }
                let read = try await step(&position!)
                if read > 0 {
                    // Under a stream of writes (a batch of many events), one batch per
                    // `busyInterval` at most; after a quiet write, only `gathering`.
                    try? await Task.sleep(for: read >= Self.busyBatch ? busyInterval : gathering)
                    continue
                }
                if ContinuousClock.now - lastPrune > .seconds(60) {
                    lastPrune = .now
                    try await pruneEmptied()
                }
            } catch {
                position = nil
            }
            // Nothing new (or a failure): wait for a write's ring (EventLog's poll rings too),
            // then let the burst it belongs to gather.
            guard await rings.next() != nil else { return }
            try? await Task.sleep(for: gathering)
        }
    }

    /// Applies the events after `position.read` (a page at a time, until one changes
    /// something), if any; answers how many events it read.
    @discardableResult
    public func step(_ position: inout Position) async throws -> Int {
        var last = position.read
        var read = 0
        var changes: [NotificationChange] = []
        repeat {
            let page = try await events.store.events(after: last, limit: EventLog.pageSize)
            guard let pageLast = page.last?.id else { break }
            for recorded in page { changes += NotificationRules.changes(for: recorded) }
            last = pageLast
            read += page.count
        } while changes.isEmpty
        guard last > position.read else { return 0 }
        if changes.isEmpty {
            position.read = last
        } else if try await store.applyNotifications(changes, after: position.stored, through: last) {
            position = Position(read: last, stored: last)
            applied()
        } else {
            // Another instance applied these events first: read on from its progress.
            let stored = try await store.notificationProgress()
            position = Position(read: stored, stored: stored)
        }
        return read
    }

    /// Applies every event written so far, without waiting for a wake-up.
    public func catchUp() async throws {
        let stored = try await store.notificationProgress()
        var position = Position(read: stored, stored: stored)
        while try await step(&position) > 0 {}
    }

    /// Emptied groups are kept while a stream could resume before them, then deleted.
    func pruneEmptied() async throws {
        let first = try await events.store.firstEventID()
        guard first > 0 else { return }
        while try await store.pruneEmptiedNotifications(changedBefore: first, limit: EventLog.pruneBatch)
            == EventLog.pruneBatch
        {
            await Task.yield()
        }
    }
}
