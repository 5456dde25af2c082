import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import Logging
import PostgresNIO

/// `notifications`: a page of the notification list and the unread count, in process, for a
/// user with `count` notification groups (three actors each, a third each likes, comments and
/// follows, every one unread), on either engine. The rows are seeded by SQL in the engine's
/// own schema, as the worker would have left them.
struct NotificationBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications", abstract: "Notification list pages and the unread count of a busy user.")

    @Option(help: "Notification groups of the measured user.") var count = 100_000
    @Option(help: "Repetitions per measurement.") var repetitions = 300
    @Option(help: "Storage engine: sqlite, or postgres (a database that scripts/postgres provides).")
    var engine = "sqlite"
    @Option(help: "Folder for the SQLite benchmark database (kept between runs).")
    var dataDir = "bench-data/notifications"
    @Option(help: "PostgreSQL URL (default: BURGERMAP_TEST_DATABASE_URL, as scripts/postgres sets it).")
    var databaseURL: String?

    static let origin: Int64 = 1_767_225_600_000

    func run() async throws {
        switch engine {
        case "sqlite":
            let folder = URL(fileURLWithPath: dataDir).appendingPathComponent("n\(count)")
            let database = try AppDatabase(dataDirectory: folder)
            let seeded = try await database.benchmarkRead { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM notification_groups") ?? 0
            }
            if seeded != count {
                try await database.benchmarkWrite { db in
                    for statement in Self.statements(count: count, series: Self.sqliteSeries) {
                        try db.execute(sql: statement)
                    }
                }
            }
            try await measure(database)
        case "postgres":
            guard let text = databaseURL ?? ProcessInfo.processInfo.environment["BURGERMAP_TEST_DATABASE_URL"] else {
                throw ValidationError("no PostgreSQL URL: pass --database-url or run through scripts/postgres")
            }
            var quiet = Logger(label: "burgermap-bench")
            quiet.logLevel = .warning
            let logger = quiet
            try await PostgresEngine.withEngine(url: try PostgresDatabaseURL(text), logger: logger) { engine in
                let stored = try await engine.pool.query("SELECT count(*) FROM notification_groups", logger: logger)
                var seeded: Int64 = 0
                for try await value in stored.decode(Int64.self) { seeded = value }
                if seeded != count {
                    try await engine.pool.withConnection { connection in
                        try await connection.query(
                            "TRUNCATE users, places RESTART IDENTITY CASCADE", logger: logger)
                        for statement in Self.statements(count: count, series: Self.postgresSeries) {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query("VACUUM ANALYZE", logger: logger)
                    }
                }
                try await measure(engine.stores.notifications)
            }
        default:
            throw ValidationError("--engine is sqlite or postgres")
        }
    }

    /// `1…n` as a row source named `g(i)`.
    static func sqliteSeries(_ n: Int) -> String {
        "(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(n)) SELECT i FROM s) AS g"
    }

    static func postgresSeries(_ n: Int) -> String { "generate_series(1, \(n)) AS g(i)" }

    /// The recipient (user 1), ten actors, a thousand of the recipient's reviews, the groups
    /// (ids and event ids 1…count, newest last) and three entries each.
    static func statements(count: Int, series: (Int) -> String) -> [String] {
        [
            """
            INSERT INTO users (id, email, email_key, password_hash, nickname, nickname_key, created_at, updated_at)
            SELECT i, 'n' || i || '@bench', 'n' || i || '@bench', 'not a hash', 'n' || i, 'n' || i, 0, 0
            FROM \(series(11))
            """,
            series(1).hasPrefix("(WITH")
                ? """
                INSERT INTO places (id, name, lat, lng, geom, created_at, updated_at)
                VALUES (1, 'Bench Burger', 37.5, 127.0, MakePoint(127.0, 37.5, 4326), 0, 0)
                """
                : "INSERT INTO places (id, name, lat, lng, created_at, updated_at) VALUES (1, 'Bench Burger', 37.5, 127.0, 0, 0)",
            """
            INSERT INTO reviews (id, place_id, author_id, rating, text, created_at, updated_at)
            SELECT i, 1, 1, 5, 'A bench review whose first words become the excerpt of its notifications.', 0, 0
            FROM \(series(1_000))
            """,
            """
            INSERT INTO notification_groups (id, user_id, type, group_key, latest_event_id, changed_event_id, count,
                latest_at, review_id, comment_id, decision, read)
            SELECT i, 1, CASE i % 3 WHEN 0 THEN 'like' WHEN 1 THEN 'follow' ELSE 'comment' END, 'bench-' || i, i, i, 3,
                \(origin) + i * 1000, CASE WHEN i % 3 = 1 THEN NULL ELSE 1 + i % 1000 END, NULL, NULL, \(false)
            FROM \(series(count))
            """,
            """
            INSERT INTO notification_entries (group_id, actor_id, object_id, seq)
            SELECT i, 2 + (i + k) % 10, 0, i * 1000 + k FROM \(series(count)) CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1 UNION ALL SELECT 2) AS e
            """,
        ]
    }

    func measure(_ store: any NotificationStore) async throws {
        let user: Int64 = 1
        let middle = Int64(count / 2)
        let cases: [(String, @Sendable () async throws -> Int)] = [
            (
                "first page (20)",
                { try await store.notifications(for: user, filter: .init(), before: nil, limit: 21).count }
            ),
            (
                "page in the middle (20)",
                { try await store.notifications(for: user, filter: .init(), before: middle, limit: 21).count }
            ),
            (
                "unread only, first page",
                {
                    try await store.notifications(for: user, filter: .init(unreadOnly: true), before: nil, limit: 21)
                        .count
                }
            ),
            (
                "types=follow, first page",
                {
                    try await store.notifications(for: user, filter: .init(types: [.follow]), before: nil, limit: 21)
                        .count
                }
            ),
            (
                "unread count (capped at 1,000)",
                { try await store.unreadNotificationCount(for: user, cap: NotificationLimits.unreadCountCap) }
            ),
        ]
        print("\(engine): \(count) notification groups of one user, \(repetitions) repetitions each")
        for (name, body) in cases {
            var times: [Double] = []
            var answered = 0
            for _ in 0..<repetitions {
                let start = DispatchTime.now().uptimeNanoseconds
                answered = try await body()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            print(
                String(
                    format: "  %@ median %.3f ms  p99 %.3f ms  (%d rows)",
                    name.padding(toLength: 32, withPad: " ", startingAt: 0), median(times),
                    percentile(times, 0.99), answered))
        }
    }
}
