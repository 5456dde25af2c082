import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import Logging
import PostgresNIO

/// `nearby-replicas`: the same nearby searches answered by a streaming replica through the
/// lag-tolerant router (the routes' path: the turn among replicas, the read watched for the
/// replica going down) and by the primary's `PlaceStore` directly, in one run; and through the
/// router to the primary (a recent writer's read), for the routing's own cost.
struct ReplicaNearbyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearby-replicas",
        abstract: "Median time of a 20-nearest query within 2 km on a read replica against the primary, side by side.")

    @Option(help: "How many places in the area.") var places = 1_000_000
    @Option(help: "Side of the square area, in km.") var sideKm = 100.0
    @Option(help: "How many queries per target.") var queries = 1000
    @Option(help: "Radius of each query, in metres.") var radius = 2000.0
    @Option(help: "Results per query.") var limit = 20
    @Option(help: "Folder for the SQLite benchmark database (kept between runs).") var dataDir = "bench-data/nearby"
    @Option(help: "The primary's URL.") var databaseURL: String
    @Option(help: "The replica's URL (a streaming replica of the primary).") var replicaURL: String
    @Option(help: "Queries of one target before the next takes its turn.") var block = 50

    func run() async throws {
        let area = BenchArea(centerLat: 37.5665, centerLng: 126.9780, sideKm: sideKm)
        let database = try await openNearbyBenchDatabase(places: places, sideKm: sideKm, dataDir: dataDir)
        var quiet = Logger(label: "burgermap-bench")
        quiet.logLevel = .warning
        let logger = quiet
        let replicas = PostgresReplicaOptions(urls: [try PostgresDatabaseURL(replicaURL)])
        try await PostgresEngine.withEngine(
            url: try PostgresDatabaseURL(databaseURL), replicas: replicas, logger: logger
        ) { engine in
            try await copyBenchPlaces(from: database, into: engine, count: places, logger: logger)
            let replicas = try await Self.caughtUpReplicas(engine)
            // A writer whose window outlasts the run: "routed-primary" stays on the primary.
            let writers = RecentWriters(window: .seconds(86_400), startingAt: Timestamp(milliseconds: 0))
            let router = LagTolerantRouter(
                primary: engine.stores.lagTolerantReads, replicas: replicas, writers: writers)
            writers.noteWrite(by: 1)
            let writer = LagTolerantRouter.Reader(userID: 1, signedInAt: nil)
            var generator = SeededGenerator(seed: 7)
            let points = (0..<queries).map { _ in area.randomPoint(using: &generator) }
            typealias Search = @Sendable (NearbyQuery) async throws -> (NearbyPage, ReadRoute?)
            let targets: [(String, Search)] = [
                ("primary", { (try await engine.places.nearbyPlaces($0), nil) }),
                (
                    "replica",
                    { query in
                        let (page, route) = try await router.run(for: nil) { try await $0.nearbyPlaces(query) }
                        return (page, route)
                    }
                ),
                (
                    "routed-primary",
                    { query in
                        let (page, route) = try await router.run(for: writer) { try await $0.nearbyPlaces(query) }
                        return (page, route)
                    }
                ),
            ]
            // Every point once untimed on each target: both servers' caches warm.
            for (_, search) in targets {
                for point in points {
                    _ = try await search(NearbyQuery(lat: point.lat, lng: point.lng, radiusM: radius, limit: limit))
                }
            }
            var times: [String: [Double]] = [:]
            var routes: [String: Set<String>] = [:]
            var agreements = 0
            for start in stride(from: 0, to: points.count, by: block) {
                var answers: [String: [[Int64]]] = [:]
                for (name, search) in targets {
                    for point in points[start..<min(points.count, start + block)] {
                        let query = NearbyQuery(lat: point.lat, lng: point.lng, radiusM: radius, limit: limit)
                        let begin = DispatchTime.now().uptimeNanoseconds
                        let (page, route) = try await search(query)
                        times[name, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1000)
                        routes[name, default: []].insert(Self.describe(route))
                        answers[name, default: []].append(page.items.map(\.place.id))
                    }
                }
                agreements += zip(answers["primary"]!, answers["replica"]!).filter { $0 == $1 }.count
            }
            print(
                "places: \(places) in \(Int(sideKm)) km x \(Int(sideKm)) km, \(queries) queries per target, "
                    + "\(limit) nearest within \(Int(radius)) m; primary and replica on this machine")
            for (name, _) in targets {
                print(
                    String(
                        format: "%-15@ median %8.1f us  p90 %8.1f us  p99 %8.1f us  (%@)", name, median(times[name]!),
                        percentile(times[name]!, 0.9), percentile(times[name]!, 0.99),
                        routes[name]!.sorted().joined(separator: ", ")))
            }
            print(
                String(
                    format: "replica / primary (medians): %.3f", median(times["replica"]!) / median(times["primary"]!)))
            print("identical pages (ids), replica and primary: \(agreements) of \(points.count)")
        }
    }

    /// Where a search ran, for the report.
    static func describe(_ route: ReadRoute?) -> String {
        switch route {
        case nil: "the primary's store"
        case .replica(let index)?: "router: replica \(index)"
        case .primary(let reason)?: "router: primary, \(reason.rawValue)"
        }
    }

    /// The engine's replicas once the replica has replayed everything the primary wrote (the
    /// places just copied) and is in use.
    static func caughtUpReplicas(_ engine: PostgresEngine) async throws -> PostgresReplicas {
        guard let replicas = engine.replicas else { throw ValidationError("no replica") }
        var lsn = ""
        for try await text in try await engine.pool.query("SELECT pg_current_wal_insert_lsn()::text").decode(
            String.self)
        {
            lsn = text
        }
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            await replicas.checkNow()
            if replicas.statuses[0].isInUse, try await Self.replayed(lsn, on: replicas.replicas[0]) {
                return replicas
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw ValidationError("the replica did not catch up within 10 minutes: \(replicas.statuses)")
    }

    static func replayed(_ lsn: String, on replica: PostgresReplica) async throws -> Bool {
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: replica.url.host, port: replica.url.port, username: replica.url.username,
                password: replica.url.password, database: replica.url.database, tls: .disable),
            id: 1, logger: Logger(label: "burgermap-bench"))
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT coalesce(pg_last_wal_replay_lsn() >= '\(lsn)'::pg_lsn, false)"),
            logger: Logger(label: "burgermap-bench"))
        for try await caughtUp in rows.decode(Bool.self) { return caughtUp }
        return false
    }
}
