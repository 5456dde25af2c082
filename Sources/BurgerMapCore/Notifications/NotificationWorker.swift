/// Turns the event log into notification groups: reads the events after its progress, asks
/// `NotificationRules` what each means, and has the store apply a batch and move the progress
/// in one transaction. Each batch is applied exactly once whatever happens: a restart resumes
/// from the stored progress, and when several instances run a worker, the one whose progress is
/// stale is refused and reads on from the winner's.
public final class NotificationWorker: Sendable {
    let store: any NotificationStore
    let events: EventLog

    public init(store: any NotificationStore, events: EventLog) {
        self.store = store
        self.events = events
    }

    /// Runs until cancelled; a database that fails is tried again at the next wake-up.
    public func run() async {
        var rings = events.store.eventSignal.rings().makeAsyncIterator()
        var applied: Int64?
        var lastPrune = ContinuousClock.now
        while !Task.isCancelled {
            do {
                var progress = applied ?? 0
                if applied == nil { progress = try await store.notificationProgress() }
                applied = progress
                if try await step(after: progress, applied: &applied) { continue }
                if ContinuousClock.now - lastPrune > .seconds(60) {
                    lastPrune = .now
                    try await pruneEmptied()
                }
            } catch {
                applied = nil
            }
            // Nothing new (or a failure): wait for a write's ring; EventLog's poll rings too.
            guard await rings.next() != nil else { return }
        }
    }

    /// Applies the next page of events, if any; answers whether there was one. Events that
    /// change nothing move the progress only with the next batch that does (or never, which
    /// costs a re-read after a restart and nothing else).
    @discardableResult
    public func step(after progress: Int64, applied: inout Int64?) async throws -> Bool {
        // The stored progress may lag the in-memory one (events that changed nothing), never
        // lead it but when another instance applied further: then read on from there.
        let stored = try await store.notificationProgress()
        if stored > progress {
            applied = stored
            return true
        }
        var last = progress
        var changes: [NotificationChange] = []
        repeat {
            let page = try await events.store.events(after: last, limit: EventLog.pageSize)
            guard let pageLast = page.last?.id else { break }
            for recorded in page { changes += NotificationRules.changes(for: recorded) }
            last = pageLast
        } while changes.isEmpty
        guard last > progress else { return false }
        if changes.isEmpty {
            applied = last
        } else if try await store.applyNotifications(changes, after: stored, through: last) {
            applied = last
        } else {
            applied = try await store.notificationProgress()
        }
        return true
    }

    /// Applies every event written so far, without waiting for a wake-up.
    public func catchUp() async throws {
        var applied: Int64? = try await store.notificationProgress()
        while let progress = applied, try await step(after: progress, applied: &applied) {}
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
