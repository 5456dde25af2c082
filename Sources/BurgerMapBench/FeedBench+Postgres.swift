import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import Foundation
import Logging
import PostgresNIO

/// `feed --engine postgres`: the same data shape as the SQLite run (users, reviews spread evenly
/// over them at random times over a year, the reader following `follows` users plus 200,000
/// random follows), seeded inside PostgreSQL with `generate_series`, then the feed's pages
/// through the engine's `FeedStore`, and the plans of the statement a page runs.
extension FeedBench {
    func runPostgres() async throws {
        guard let text = databaseURL ?? ProcessInfo.processInfo.environment["BURGERMAP_TEST_DATABASE_URL"] else {
            throw ValidationError("no PostgreSQL URL: pass --database-url or run through scripts/postgres")
        }
        var quiet = Logger(label: "burgermap-bench")
        quiet.logLevel = .warning
        let logger = quiet
        try await PostgresEngine.withEngine(url: try PostgresDatabaseURL(text), logger: logger) { engine in
            try await fillPostgres(engine, logger: logger)
            try await measurePostgresPages(engine, logger: logger)
            if blocks > 0 { try await measurePostgresBlocks(engine, logger: logger) }
        }
    }

    /// Seeds the tables unless they hold this many reviews; one connection, so that `setseed`
    /// makes `random()` repeatable.
    func fillPostgres(_ engine: PostgresEngine, logger: Logger) async throws {
        let stored = try await engine.pool.query("SELECT count(*) FROM reviews", logger: logger)
        for try await count in stored.decode(Int64.self) where count == reviews { return }
        let start = Date()
        let (users, reviews, follows) = (Int64(users), Int64(reviews), Int64(follows))
        let year: Int64 = 365 * 24 * 3600 * 1000
        let origin: Int64 = 1_767_225_600_000
        try await engine.pool.withConnection { connection in
            let statements: [PostgresQuery] = [
                "TRUNCATE users, places RESTART IDENTITY CASCADE",
                "SELECT setseed(0.11)",
                """
                INSERT INTO places (id, name, lat, lng, created_at, updated_at)
                SELECT g, 'Bench Burger ' || g, 37.5, 127.0, 0, 0 FROM generate_series(1, 100) AS g
                """,
                """
                INSERT INTO users (id, email, email_key, password_hash, nickname, nickname_key, created_at, updated_at)
                SELECT g, 'u' || g || '@bench', 'u' || g || '@bench', 'not a hash', 'u' || g, 'u' || g, 0, 0
                FROM generate_series(1, \(users)) AS g
                """,
                """
                INSERT INTO reviews (id, place_id, author_id, rating, text, created_at, updated_at)
                SELECT g, 1 + floor(random() * 100)::int, g % \(users) + 1, 1 + floor(random() * 5)::int,
                    'Bench review with a few words about the burger.', t, t
                FROM (SELECT g, \(origin) + floor(random() * \(year))::bigint AS t
                      FROM generate_series(1, \(reviews)) AS g) AS s
                """,
                """
                INSERT INTO follows (follower_id, followee_id, created_at)
                SELECT 1, g, \(origin) FROM generate_series(2, \(follows) + 1) AS g
                """,
                """
                INSERT INTO follows (follower_id, followee_id, created_at)
                SELECT a, b, \(origin) FROM (
                    SELECT 2 + floor(random() * (\(users) - 1))::bigint AS a,
                           2 + floor(random() * (\(users) - 1))::bigint AS b
                    FROM generate_series(1, 200000)) AS pairs
                WHERE a <> b
                ON CONFLICT DO NOTHING
                """,
                "SELECT setval(pg_get_serial_sequence('users', 'id'), \(users))",
                "SELECT setval(pg_get_serial_sequence('places', 'id'), 100)",
                "SELECT setval(pg_get_serial_sequence('reviews', 'id'), \(reviews))",
                // The planner needs the statistics.
                "VACUUM ANALYZE",
            ]
            for statement in statements { try await connection.query(statement, logger: logger) }
            try await vacuumUntilAllVisible("reviews", on: connection, logger: logger)
        }
        print(String(format: "seeded PostgreSQL (generate_series) in %.1f s", Date().timeIntervalSince(start)))
    }

    func measurePostgresPages(_ engine: PostgresEngine, logger: Logger) async throws {
        var positions: [TimeKey?] = [nil]
        var after: TimeKey?
        while positions.count < 501 {
            let page = try await engine.feed.feed(of: Self.reader, after: after, limit: 20)
            guard let next = page.next else { break }
            positions.append(next)
            after = next
        }
        print("reader follows \(follows) of \(users) users; \(reviews) reviews; walked \(positions.count) pages")
        let pageNumbers = [1, 10, 100, 250, 500].filter { $0 <= positions.count }
        var times = [[Double]](repeating: [], count: pageNumbers.count)
        for _ in 0..<repetitions {
            for (slot, pageNumber) in pageNumbers.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try await engine.feed.feed(of: Self.reader, after: positions[pageNumber - 1], limit: 20)
                times[slot].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        print("page   median through the FeedStore (20 reviews, decoded)   server time (EXPLAIN ANALYZE)")
        for (slot, pageNumber) in pageNumbers.enumerated() {
            let plan = try await explain(
                PostgresFeedStore.pageStatement(of: Self.reader, after: positions[pageNumber - 1], limit: 20),
                engine, logger: logger)
            print(String(format: "%4d   %10.3f ms   %@", pageNumber, median(times[slot]), executionTime(plan)))
        }
        let first = try await explain(
            PostgresFeedStore.pageStatement(of: Self.reader, after: nil, limit: 20), engine, logger: logger)
        print("plan of the first page:\n" + first.joined(separator: "\n"))
        let perAuthor = try await explain(
            PostgresFeedStore.pageStatement(of: Self.reader, after: nil, limit: 20, window: 0), engine, logger: logger)
        print("first page by the per-author road alone (window 0): \(executionTime(perAuthor))")
    }

    /// The lines of `EXPLAIN (ANALYZE, BUFFERS)` of a statement, run after a warm-up.
    func explain(_ statement: PostgresQuery, _ engine: PostgresEngine, logger: Logger) async throws -> [String] {
        let query = PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, BUFFERS) " + statement.sql, binds: statement.binds)
        var lines: [String] = []
        for _ in 0..<3 {
            lines = []
            for try await line in try await engine.pool.query(query, logger: logger).decode(String.self) {
                lines.append(line)
            }
        }
        return lines
    }

    func executionTime(_ plan: [String]) -> String {
        plan.last { $0.hasPrefix("Execution Time") } ?? "?"
    }
}
