import BurgerMapCore
import Hummingbird
import Logging
import Metrics
import ServiceLifecycle

/// Where the routes send the reads that tolerate a little lag (nearby, viewport, clusters, place
/// search, the public review lists, public profiles): `LagTolerantRouter`'s rule, applied to a
/// request. Everything else (writes, sign-in, `/v1/users/me`, a single place or review, feeds,
/// notifications, moderation, vector tiles, OGC API – Features, the LookForRealBurger routes)
/// keeps the primary's stores.
///
/// Without replicas it runs the read on the primary and does nothing else: no token is read,
/// nothing is counted. With them, a request with a Bearer token has it verified once more (the
/// middleware's check does not keep when the token was issued, and the place routes have no
/// middleware): an HMAC and a small JSON decode, beside a nearby search's 1.6 ms on
/// PostgreSQL. A token that is not valid makes the read anonymous; it does not change the answer.
public struct ReadRouting: Sendable {
    public let router: LagTolerantRouter
    let tokens: AccessTokens
    private let metrics: ReadRouteMetrics?

    init(router: LagTolerantRouter, tokens: AccessTokens) {
        self.router = router
        self.tokens = tokens
        metrics = router.replicas.map { ReadRouteMetrics(replicas: $0.statuses.count) }
    }

    /// The recent writers that the token middleware notes writes in; `nil` without replicas.
    var writers: RecentWriters? { router.writers }

    /// Runs `read` where the rule sends this request's read.
    func run<Value: Sendable>(
        _ request: Request, _ context: AppRequestContext,
        _ read: @escaping @Sendable (LagTolerantReads) async throws -> Value
    ) async throws -> Value {
        guard let metrics else { return try await read(router.primary) }
        let now = Timestamp.now()
        let reader = await self.reader(of: request, context)
        let (value, route) = try await router.run(for: reader, at: now, read)
        metrics.count(route)
        return value
    }

    /// The signed-in user and when their token was issued; `nil` for an anonymous request.
    private func reader(of request: Request, _ context: AppRequestContext) async -> LagTolerantRouter.Reader? {
        guard let token = request.bearerToken else { return nil }
        // A recent writer needs no token age (the middleware verified who they are).
        if let user = context.identity, router.writers?.wroteRecently(user.id) == true {
            return LagTolerantRouter.Reader(userID: user.id, signedInAt: nil)
        }
        guard let (userID, issuedAt) = await tokens.subjectAndIssue(of: token) else { return nil }
        return LagTolerantRouter.Reader(userID: userID, signedInAt: issuedAt)
    }

    /// Copies each replica's last check into `/metrics` (the service does it every second).
    func recordReplicaGauges() {
        guard let metrics, let replicas = router.replicas else { return }
        metrics.record(replicas.statuses, recentWriters: router.writers?.count ?? 0)
    }
}

/// The metrics of routing: reads per target, each replica's lag and whether it is in use.
private final class ReadRouteMetrics: Sendable {
    /// `burgermap_replica_reads_total{replica}`: lag-tolerant reads a replica answered.
    let replicaReads: [Counter]
    /// `burgermap_primary_lag_tolerant_reads_total{reason}`: those the primary answered, and why.
    let primaryReads: [ReadRoute.PrimaryReason: Counter]
    /// `burgermap_replica_lag_seconds{replica}` (NaN while unknown: down, or no stream).
    let lag: [Gauge]
    /// `burgermap_replica_in_use{replica}`: 1 when reads go to it, else 0.
    let inUse: [Gauge]
    /// `burgermap_recent_writers`: the users whose signed-in reads stay on the primary.
    let recentWriters = Gauge(label: "burgermap_recent_writers")

    init(replicas: Int) {
        replicaReads = (0..<replicas).map {
            Counter(label: "burgermap_replica_reads_total", dimensions: [("replica", "\($0)")])
        }
        primaryReads = Dictionary(
            uniqueKeysWithValues: ReadRoute.PrimaryReason.allCases.map {
                (
                    $0,
                    Counter(label: "burgermap_primary_lag_tolerant_reads_total", dimensions: [("reason", $0.rawValue)])
                )
            })
        lag = (0..<replicas).map { Gauge(label: "burgermap_replica_lag_seconds", dimensions: [("replica", "\($0)")]) }
        inUse = (0..<replicas).map { Gauge(label: "burgermap_replica_in_use", dimensions: [("replica", "\($0)")]) }
    }

    func count(_ route: ReadRoute) {
        switch route {
        case .replica(let index): replicaReads[index].increment()
        case .primary(let reason): primaryReads[reason]?.increment()
        }
    }

    func record(_ statuses: [ReplicaStatus], recentWriters count: Int) {
        for (index, status) in statuses.enumerated() where index < lag.count {
            lag[index].record(status.lagSeconds ?? .nan)
            inUse[index].record(status.isInUse ? 1 : 0)
        }
        recentWriters.record(count)
    }
}

/// With replicas (`buildApplication` runs it only then): follows the event log into the recent
/// writers (every instance learns of every other's writes), and refreshes the replica gauges
/// every second.
struct ReadRoutingService: Service {
    let routing: ReadRouting
    let events: EventLog
    let now: @Sendable () -> Timestamp
    var logger = Logger(label: "burgermap.replicas")

    func run() async throws {
        guard let writers = routing.writers else { return }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await follow(into: writers) }
                group.addTask {
                    while !Task.isCancelled {
                        routing.recordReplicaGauges()
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
            }
        }
    }

    /// Notes the actor of every event from the log's end on. The writes before that end are not
    /// read: every signed-in reader counts as a recent writer for one window from then.
    private func follow(into writers: RecentWriters) async {
        var start: Int64?
        while start == nil, !Task.isCancelled {
            start = try? await events.store.lastEventID()
            if start == nil { try? await Task.sleep(for: events.pollInterval) }
        }
        guard let start else { return }
        writers.noteUnknownWrites(at: now())
        for await recorded in events.subscribe(after: start) {
            if let actor = recorded.event.actor { writers.noteWrite(by: actor, at: now()) }
        }
    }
}
