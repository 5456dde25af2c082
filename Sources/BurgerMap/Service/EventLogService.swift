import BurgerMapCore
import Logging
import ServiceLifecycle

/// Runs the event log's poll, pruning and (on PostgreSQL) listener beside the HTTP server, and
/// stops them when the service shuts down. With `logsEvents` (`--log-events`) it is also a
/// subscriber: one log line per event, from the newest at start, in id order (what
/// scripts/multi-instance reads to check that every instance sees every other's events).
struct EventLogService: Service {
    let log: EventLog
    var logsEvents = false
    var logger = Logger(label: "burgermap.events")

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await log.run() }
                if logsEvents {
                    group.addTask { await logEvents() }
                }
            }
        }
    }

    private func logEvents() async {
        var start: Int64?
        while start == nil, !Task.isCancelled {
            start = try? await log.store.lastEventID()
            if start == nil { try? await Task.sleep(for: log.pollInterval) }
        }
        guard let start else { return }
        for await recorded in log.subscribe(after: start) {
            let event = recorded.event
            logger.info(
                "event",
                metadata: [
                    "event_id": "\(recorded.id)", "kind": "\(event.kind.rawValue)",
                    "actor": "\(event.actor.map(String.init) ?? "-")", "subject": "\(event.subject)",
                    "written_ms": "\(recorded.time.milliseconds)",
                ])
        }
    }
}
