import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import GRDB
import Logging

/// `feed --blocks N`: a reader's feed and a place's review list (10,000 reviews) with `N` blocks
/// in force against the same reads without, alternating in rounds: the blocks are written,
/// then taken away, each round. The reader blocks users they do not follow (blocking a followed
/// user would end the follow and change the feed itself).
extension FeedBench {
    /// Blocks the reader holds in a round: users past those followed.
    var blockedUsers: ClosedRange<Int64> { Int64(follows + 2)...Int64(follows + 1 + blocks) }

    /// The two reads, timed `repetitions / 10` times each per round, ten rounds.
    func measureBlocks(
        feed: @escaping () async throws -> Void, place: @escaping () async throws -> Void,
        setBlocks: (Bool) async throws -> Void
    ) async throws {
        var times: [String: [Double]] = [:]
        for _ in 0..<10 {
            for active in [false, true] {
                try await setBlocks(active)
                for (name, read) in [("feed", feed), ("place", place)] {
                    for _ in 0..<max(5, repetitions / 10) {
                        let start = DispatchTime.now().uptimeNanoseconds
                        try await read()
                        times["\(name)-\(active)", default: []].append(
                            Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    }
                }
            }
        }
        try await setBlocks(false)
        for name in ["feed", "place"] {
            let without = median(times["\(name)-false"]!)
            let with = median(times["\(name)-true"]!)
            print(
                String(
                    format: "%@ first page: %.3f ms without blocks, %.3f ms with %d: %.2fx",
                    name == "feed"
                        ? "feed" : "place reviews (place 1)", without, with, blocks, with / without))
        }
    }

    func measureBlocks(_ database: AppDatabase) async throws {
        let range = blockedUsers
        try await measureBlocks(
            feed: { _ = try await database.feed(of: Self.reader, after: nil, limit: 20) },
            place: { _ = try await database.reviews(.place(1), after: nil, limit: 20, viewer: Self.reader) },
            setBlocks: { active in
                try await database.benchmarkWrite { db in
                    try db.execute(sql: "DELETE FROM blocks WHERE blocker_id = ?", arguments: [Self.reader])
                    guard active else { return }
                    for user in range {
                        try db.execute(
                            sql: "INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (?, ?, 0)",
                            arguments: [Self.reader, user])
                    }
                }
            })
    }

    func measurePostgresBlocks(_ engine: PostgresEngine, logger: Logger) async throws {
        let (first, last) = (blockedUsers.lowerBound, blockedUsers.upperBound)
        let stores = engine.stores
        try await measureBlocks(
            feed: { _ = try await stores.feed.feed(of: Self.reader, after: nil, limit: 20) },
            place: { _ = try await stores.reviews.reviews(.place(1), after: nil, limit: 20, viewer: Self.reader) },
            setBlocks: { active in
                try await engine.pool.query("DELETE FROM blocks WHERE blocker_id = \(Self.reader)", logger: logger)
                guard active else { return }
                try await engine.pool.query(
                    """
                    INSERT INTO blocks (blocker_id, blocked_id, created_at)
                    SELECT \(Self.reader), g, 0 FROM generate_series(\(first), \(last)) AS g
                    """, logger: logger)
                try await engine.pool.query("ANALYZE blocks", logger: logger)
            })
    }
}
