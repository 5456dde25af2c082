import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapSQLite
import Foundation
import GRDB

/// `feed`: the feed's first and 500th page (keyset) against the same walk with `OFFSET`, and
/// likes/unlikes from 50 concurrent clients, on 100,000 users and 1,000,000 reviews. With
/// `--engine postgres`: the feed's pages through the PostgreSQL engine, with the plans
/// (`FeedBench+Postgres.swift`).
struct FeedBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "Feed page times (keyset vs OFFSET) and concurrent like/unlike throughput.")

    @Option(help: "How many users.") var users = 100_000
    @Option(help: "How many reviews (spread evenly over the users, random times over a year).") var reviews =
        1_000_000
    @Option(help: "How many users the reader follows.") var follows = 1_000
    @Option(help: "Repetitions per measured page.") var repetitions = 200
    @Option(help: "Blocks the reader holds in the blocks comparison (0: none measured).") var blocks = 1_000
    @Option(help: "Concurrent likers.") var likers = 50
    @Option(help: "Like or unlike operations per liker.") var toggles = 200
    @Option(help: "Folder for the benchmark database (kept between runs).") var dataDir = "bench-data/feed"
    @Option(help: "Storage engine: sqlite, or postgres (a database that scripts/postgres provides).")
    var engine = "sqlite"
    @Option(help: "PostgreSQL URL (default: BURGERMAP_TEST_DATABASE_URL, as scripts/postgres sets it).")
    var databaseURL: String?

    /// The reader whose feed is measured.
    static let reader: Int64 = 1

    func run() async throws {
        switch engine {
        case "sqlite": break
        case "postgres": return try await runPostgres()
        default: throw ValidationError("--engine is sqlite or postgres")
        }
        let folder = URL(fileURLWithPath: dataDir).appendingPathComponent("u\(users)-r\(reviews)-f\(follows)")
        let database = try AppDatabase(dataDirectory: folder)
        try await fill(database)
        try await measurePages(database)
        if blocks > 0 { try await measureBlocks(database) }
        try await measureLikes(database)
    }

    /// Users `1…users`, reviews `1…reviews` whose author is `id % users + 1` (so everyone has the
    /// same number), and the reader following users `2…follows + 1`, plus 200,000 random follows
    /// among everyone else. Written once; later runs reuse the file.
    func fill(_ database: AppDatabase) async throws {
        let stored = try await database.benchmarkRead { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reviews")
        }
        guard stored != reviews else { return }
        let start = Date()
        try await database.benchmarkWrite { [users, reviews, follows] db in
            var generator = SeededGenerator(seed: 11)
            for id in 1...100 {
                try db.execute(
                    sql: """
                        INSERT INTO places (id, name, lat, lng, geom, created_at, updated_at)
                        VALUES (?, ?, 37.5, 127.0, MakePoint(127.0, 37.5, 4326), 0, 0)
                        """, arguments: [id, "Bench Burger \(id)"])
            }
            let user = try db.makeStatement(
                sql: """
                    INSERT INTO users (id, email, email_key, password_hash, nickname, nickname_key, created_at, updated_at)
                    VALUES (?1, ?2, ?2, 'not a hash', ?3, ?3, 0, 0)
                    """)
            for id in 1...users { try user.execute(arguments: [id, "u\(id)@bench", "u\(id)"]) }
            let review = try db.makeStatement(
                sql: """
                    INSERT INTO reviews (id, place_id, author_id, rating, text, created_at, updated_at)
                    VALUES (?1, ?2, ?3, ?4, 'Bench review with a few words about the burger.', ?5, ?5)
                    """)
            let year: Int64 = 365 * 24 * 3600 * 1000
            let origin: Int64 = 1_767_225_600_000
            for id in 1...reviews {
                let time = origin + Int64.random(in: 0..<year, using: &generator)
                try review.execute(arguments: [
                    id, Int.random(in: 1...100, using: &generator), id % users + 1,
                    Int.random(in: 1...5, using: &generator), time,
                ])
            }
            let follow = try db.makeStatement(
                sql: "INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)")
            for followee in 2...(follows + 1) { try follow.execute(arguments: [Self.reader, followee, origin]) }
            for _ in 0..<200_000 {
                let follower = Int.random(in: 2...users, using: &generator)
                let followee = Int.random(in: 2...users, using: &generator)
                if follower != followee { try follow.execute(arguments: [follower, followee, origin]) }
            }
        }
        try await database.benchmarkWrite { db in try db.execute(sql: "ANALYZE") }
        print(String(format: "filled %@ in %.1f s", dataDir, Date().timeIntervalSince(start)))
    }

    /// The median time of `body` over `repetitions` runs, in milliseconds.
    func timed(_ body: () async throws -> Void) async throws -> Double {
        var times: [Double] = []
        for _ in 0..<repetitions {
            let start = DispatchTime.now().uptimeNanoseconds
            try await body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return median(times)
    }

    func measurePages(_ database: AppDatabase) async throws {
        // Walk the feed with cursors, keeping the position before each page.
        var positions: [TimeKey?] = [nil]
        var walked: [Int64] = []
        var after: TimeKey?
        while positions.count < 501 {
            let page = try await database.feed(of: Self.reader, after: after, limit: 20)
            walked += page.items.map(\.id)
            guard let next = page.next else { break }
            positions.append(next)
            after = next
        }
        print("reader follows \(follows) of \(users) users; \(reviews) reviews; walked \(positions.count) pages")
        let offsetSQL = """
            SELECT id FROM reviews INDEXED BY reviews_by_time_with_author
            WHERE author_id IN (SELECT followee_id FROM follows WHERE follower_id = ?1 UNION ALL SELECT ?1)
            ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET ?2
            """
        // The OFFSET walk shows the same reviews, page for page.
        let offsetPage500 = try await database.benchmarkRead { db in
            try Int64.fetchAll(db, sql: offsetSQL, arguments: [Self.reader, 499 * 20])
        }
        let same = walked.count >= 500 * 20 && Array(walked[(499 * 20)..<(500 * 20)]) == offsetPage500
        print("keyset page 500 equals OFFSET page 500: \(same)")
        // Keyset pages are timed round-robin with each other, and OFFSET pages likewise after
        // them: a deep OFFSET query reads a million index entries and would leave the caches
        // cold for whatever ran next.
        let pageNumbers = [1, 10, 100, 250, 500].filter { $0 <= positions.count }
        var keysetTimes = [[Double]](repeating: [], count: pageNumbers.count)
        for _ in 0..<repetitions {
            for (slot, pageNumber) in pageNumbers.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try await database.feed(of: Self.reader, after: positions[pageNumber - 1], limit: 20)
                keysetTimes[slot].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        var offsetTimes = [[Double]](repeating: [], count: pageNumbers.count)
        for _ in 0..<max(5, repetitions / 10) {
            for (slot, pageNumber) in pageNumbers.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try await database.benchmarkRead { db in
                    let ids = try Int64.fetchAll(db, sql: offsetSQL, arguments: [Self.reader, (pageNumber - 1) * 20])
                    return try AppDatabase.reviews(db, ids: ids, viewer: Self.reader)
                }
                offsetTimes[slot].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        print("page   keyset median   OFFSET median   (20 reviews per page, in process, through the async API)")
        let keysetFirst = median(keysetTimes[0])
        let offsetFirst = median(offsetTimes[0])
        for (slot, pageNumber) in pageNumbers.enumerated() {
            let keyset = median(keysetTimes[slot])
            let offset = median(offsetTimes[slot])
            print(
                String(
                    format: "%4d   %10.3f ms   %10.3f ms   keyset %.2fx of page 1, OFFSET %.1fx of page 1", pageNumber,
                    keyset, offset, keyset / keysetFirst, offset / offsetFirst))
        }
        let perAuthor = try await timed {
            _ = try await database.feed(of: Self.reader, after: nil, limit: 20, plan: .perAuthor)
        }
        print(String(format: "first page by the per-author road alone: median %.3f ms", perAuthor))
    }

    /// `likers` clients at once, each liking and unliking one hot review `toggles` times (and a
    /// second review once), through the same database operation the route calls.
    func measureLikes(_ database: AppDatabase) async throws {
        let hot: Int64 = 1
        let other: Int64 = 2
        let likerIDs = (0..<Int64(likers)).map { 50_000 + $0 }
        try await database.benchmarkWrite { db in
            try db.execute(sql: "DELETE FROM review_likes WHERE review_id IN (?, ?)", arguments: [hot, other])
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for user in likerIDs {
                group.addTask { [toggles] in
                    var times: [Double] = []
                    for index in 0..<toggles {
                        let begin = DispatchTime.now().uptimeNanoseconds
                        // Even counts end on an unlike; every liker also likes `other` once.
                        _ = try await database.setReaction(
                            .like, active: index.isMultiple(of: 2), review: hot, user: user)
                        times.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                    }
                    _ = try await database.setReaction(.like, active: true, review: other, user: user)
                    return times
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let counts = try await database.benchmarkRead { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, r.like_count, (SELECT count(*) FROM review_likes WHERE review_id = r.id) AS rows
                    FROM reviews AS r WHERE r.id IN (?, ?) ORDER BY r.id
                    """, arguments: [hot, other]
            ).map { (count: $0["like_count"] as Int, rows: $0["rows"] as Int) }
        }
        let expectedHot = toggles.isMultiple(of: 2) ? 0 : likers
        print(
            String(
                format: "%d concurrent likers x %d toggles: %.0f ops/s, median %.2f ms, p90 %.2f ms per toggle",
                likers, toggles + 1, Double(latencies.count + likers) / seconds, median(latencies),
                percentile(latencies, 0.9)))
        print(
            "hot review like_count \(counts[0].count) (rows \(counts[0].rows), expected \(expectedHot)); "
                + "other review like_count \(counts[1].count) (rows \(counts[1].rows), expected \(likers)); "
                + "lost updates: \(counts[0].count == expectedHot && counts[1].count == likers && counts.allSatisfy { $0.count == $0.rows } ? "none" : "YES")"
        )
    }
}
