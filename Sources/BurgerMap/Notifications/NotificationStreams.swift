import BurgerMapCore
import Foundation
import Synchronization

/// The open notification streams of this instance, and the one reader of the event log that
/// feeds them all: an idle stream costs a buffer and a registry entry, never a database read.
///
/// Each `notification.updated` event (from this instance's worker or another's) names a group
/// and its recipient; when the recipient has streams here, the group is read once and its frame
/// goes to each of them. A user has at most `perUser` streams (a new one closes the oldest); the
/// instance at most `total` (then `open` refuses).
final class NotificationStreams: Sendable {
    let store: any NotificationStore
    let events: EventLog
    let perUser: Int
    let total: Int
    let heartbeat: Duration
    let now: @Sendable () -> Timestamp
    private let state = Mutex(Registry())
    /// The dispatch loop's wait for its next read while no stream is open; `open` cancels it.
    private let nap = Mutex<Task<Void, Never>?>(nil)

    /// A stream's frames, written as they come; a stream whose client reads too slowly to take
    /// `bufferedFrames` is ended (its client resumes from its `Last-Event-ID`).
    static let bufferedFrames = 256

    struct Registry {
        var byUser: [Int64: [Entry]] = [:]
        var count = 0
        var nextID: UInt64 = 0
    }

    struct Entry {
        let id: UInt64
        let continuation: AsyncStream<String>.Continuation
        let endsAt: Timestamp
    }

    init(
        store: any NotificationStore, events: EventLog, perUser: Int, total: Int, heartbeat: Duration,
        now: @escaping @Sendable () -> Timestamp
    ) {
        self.store = store
        self.events = events
        self.perUser = perUser
        self.total = total
        self.heartbeat = heartbeat
        self.now = now
    }

    /// How many streams are open here.
    var openCount: Int { state.withLock { $0.count } }

    /// Opens a stream for `user` until `endsAt`; `nil` when the instance has `total` open.
    func open(user: Int64, endsAt: Timestamp) -> (id: UInt64, frames: AsyncStream<String>)? {
        let (frames, continuation) = AsyncStream.makeStream(
            of: String.self, bufferingPolicy: .bufferingOldest(Self.bufferedFrames))
        let opened: (UInt64, Entry?)? = state.withLock { registry in
            var streams = registry.byUser[user] ?? []
            // A user's fifth stream takes the place of the oldest: the total stays the same.
            let replaces = streams.count >= perUser
            guard replaces || registry.count < total else { return nil }
            let evicted = replaces ? streams.removeFirst() : nil
            if !replaces { registry.count += 1 }
            registry.nextID += 1
            streams.append(Entry(id: registry.nextID, continuation: continuation, endsAt: endsAt))
            registry.byUser[user] = streams
            return (registry.nextID, evicted)
        }
        guard let (id, evicted) = opened else { return nil }
        evicted?.continuation.finish()
        // The first stream: the dispatch loop reads at the stream's pace from now on.
        nap.withLock { $0?.cancel() }
        let user = user
        continuation.onTermination = { [weak self] _ in self?.close(id: id, user: user) }
        return (id, frames)
    }

    /// Forgets a stream (its client went, or it ended).
    func close(id: UInt64, user: Int64) {
        state.withLock { registry in
            guard var streams = registry.byUser[user], let index = streams.firstIndex(where: { $0.id == id }) else {
                return
            }
            streams.remove(at: index)
            registry.count -= 1
            registry.byUser[user] = streams.isEmpty ? nil : streams
        }
    }

    /// Ends one stream (its frames finish; its answer completes).
    func end(id: UInt64, user: Int64) {
        let stream = state.withLock { $0.byUser[user]?.first(where: { $0.id == id }) }
        stream?.continuation.finish()
    }

    /// Sends `frame` to each of `user`'s streams; a stream that cannot take it is ended.
    func send(_ frame: String, to user: Int64) {
        let streams = state.withLock { $0.byUser[user] ?? [] }
        for stream in streams {
            if case .dropped = stream.continuation.yield(frame) { stream.continuation.finish() }
        }
    }

    private func hasStreams(_ user: Int64) -> Bool {
        state.withLock { $0.byUser[user] != nil }
    }

    /// Reads the event log from its end and sends each changed group to its recipient's
    /// streams; beats every `heartbeat` and ends the streams whose token expired. Until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.dispatch() }
            group.addTask { await self.beat() }
        }
        // Shutting down: every stream ends, so the server's graceful shutdown need not wait for
        // answers that never end (clients reconnect to another instance with their Last-Event-ID).
        let streams = state.withLock { $0.byUser.values.flatMap { $0 } }
        for stream in streams { stream.continuation.finish() }
    }

    /// Reads the event log for the open streams: at most one read per `readInterval` while
    /// streams are open, one a second while none is (so that it stays near the log's end, and a
    /// service without streams spends almost nothing here). Measured with scripts/bench-likes on
    /// PostgreSQL, whose event read also reads `pg_locks`: a read on every like's ring cost the
    /// like throughput about a tenth.
    private func dispatch() async {
        var last: Int64?
        while last == nil, !Task.isCancelled {
            last = try? await events.store.lastEventID()
            if last == nil { try? await Task.sleep(for: events.pollInterval) }
        }
        guard var last else { return }
        var rings = events.store.eventSignal.rings().makeAsyncIterator()
        var lastRead = ContinuousClock.now
        while !Task.isCancelled {
            await waitForNextRead(after: lastRead)
            if Task.isCancelled { return }
            lastRead = .now
            guard let page = try? await events.store.events(after: last, limit: EventLog.pageSize) else {
                _ = await rings.next()
                continue
            }
            for recorded in page {
                last = recorded.id
                guard recorded.event.kind == .notificationUpdated, let user = recorded.event.details.user,
                    hasStreams(user)
                else { continue }
                // A store that fails loses this frame for now; the client finds the group in its list.
                guard let group = try? await store.notificationGroup(rowID: recorded.event.subject) else { continue }
                send(Self.frame(group), to: user)
            }
            if page.count < EventLog.pageSize, await rings.next() == nil { return }
        }
    }

    /// The least time between two reads of the event log while streams are open.
    static let readInterval: Duration = .milliseconds(5)

    /// Waits until `readInterval` has passed since `lastRead` while streams are open, a second
    /// while none is; a stream that opens meanwhile ends the wait.
    ///
    /// One sleep for the whole wait: this loop used to sleep `readInterval` at a time and look
    /// again, about 200 wake-ups a second on a service with no stream open, which kept an idle
    /// service at 2% of a core (`/proc/<pid>/stat`: 40 ticks in 20 s at rest, 3 with one sleep).
    private func waitForNextRead(after lastRead: ContinuousClock.Instant) async {
        while !Task.isCancelled {
            let streamsOpen = openCount > 0
            let left = (streamsOpen ? Self.readInterval : .seconds(1)) - (ContinuousClock.now - lastRead)
            guard left > .zero else { return }
            if streamsOpen {
                try? await Task.sleep(for: left)
                continue
            }
            let sleeper = Task<Void, Never> { _ = try? await Task.sleep(for: left) }
            nap.withLock { $0 = sleeper }
            // A stream that opened after `openCount` was read, before the nap was stored.
            if openCount > 0 { sleeper.cancel() }
            await withTaskCancellationHandler {
                await sleeper.value
            } onCancel: {
                sleeper.cancel()
            }
            nap.withLock { $0 = nil }
        }
    }

    private func beat() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: heartbeat)
            let time = now()
            let streams = state.withLock { $0.byUser.values.flatMap { $0 } }
            for stream in streams {
                if stream.endsAt <= time {
                    stream.continuation.finish()
                } else if case .dropped = stream.continuation.yield(": heartbeat\n\n") {
                    stream.continuation.finish()
                }
            }
        }
    }

    /// A group as a Server-Sent Events frame: `event: notification` with the list item, or
    /// `event: notification_removed` once its entries were all taken back; `id:` is the event of
    /// the group's last change, where a client that reconnects resumes.
    static func frame(_ group: NotificationGroup) -> String {
        if group.count == 0 {
            return "id: \(group.changedEventID)\nevent: notification_removed\ndata: "
                + "{\"id\":\(group.latestEventID),\"group_key\":\(EventDetails.jsonString(group.groupKey))}\n\n"
        }
        return "id: \(group.changedEventID)\nevent: notification\ndata: \(NotificationView(group: group).json)\n\n"
    }
}
