import Foundation
import PostgresNIO
import Synchronization
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// A store under test with the review, social and feed stores of its engine, and what the
/// tests need beside them: avatars, row counts, and feeds read through a window of a given size.
protocol ReviewStoresHarness: StoreHarness {
    var reviews: any ReviewStore { get }
    /// The answers kept for `Idempotency-Key` replays.
    var idempotency: any IdempotencyStore { get }
    var social: any SocialStore { get }
    var feed: any FeedStore { get }
    /// A feed page read with a time window of `window` reviews (the per-author road when it
    /// comes up short), so that small datasets exercise both roads.
    func feed(of viewer: Int64, after: TimeKey?, limit: Int, window: Int) async throws -> KeysetPage<Review>
    /// Gives a user an avatar photo; answers its id.
    func setAvatar(userID: Int64) async throws -> Int64
    /// The number of rows of `table` (a name from the schema).
    func rowCount(_ table: String) async throws -> Int
}

extension SQLiteHarness: ReviewStoresHarness {
    var reviews: any ReviewStore { environment.database }
    var idempotency: any IdempotencyStore { environment.database }
    var social: any SocialStore { environment.database }
    var feed: any FeedStore { environment.database }

    func feed(of viewer: Int64, after: TimeKey?, limit: Int, window: Int) async throws -> KeysetPage<Review> {
        try await environment.database.feed(of: viewer, after: after, limit: limit, plan: .automatic, window: window)
    }

    func setAvatar(userID: Int64) async throws -> Int64 {
        try await environment.database.pool.write { db in
            try db.execute(
                sql: "INSERT INTO photos (owner_id, position, width, height, created_at) VALUES (?, 0, 64, 64, 0)",
                arguments: [userID])
            let id = db.lastInsertedRowID
            try db.execute(sql: "UPDATE users SET avatar_photo_id = ? WHERE id = ?", arguments: [id, userID])
            return id
        }
    }

    func rowCount(_ table: String) async throws -> Int {
        try await environment.rowCount(table)
    }
}

extension PostgresHarness: ReviewStoresHarness {
    var reviews: any ReviewStore { engine.reviews }
    var idempotency: any IdempotencyStore { engine.reviews }
    var social: any SocialStore { engine.social }
    var feed: any FeedStore { engine.feed }

    func feed(of viewer: Int64, after: TimeKey?, limit: Int, window: Int) async throws -> KeysetPage<Review> {
        try await PostgresFeedStore(pool: engine.pool, logger: engine.logger, window: window)
            .feed(of: viewer, after: after, limit: limit)
    }

    func setAvatar(userID: Int64) async throws -> Int64 {
        let rows = try await engine.pool.query(
            """
            WITH photo AS (
                INSERT INTO photos (owner_id, position, width, height, created_at) VALUES (\(userID), 0, 64, 64, 0)
                RETURNING id)
            UPDATE users SET avatar_photo_id = (SELECT id FROM photo) WHERE id = \(userID) RETURNING avatar_photo_id
            """)
        for try await id in rows.decode(Int64.self) { return id }
        throw StorageError.rowVanished("photos")
    }

    func rowCount(_ table: String) async throws -> Int {
        let rows = try await engine.pool.query("SELECT count(*) FROM \(unescaped: table)")
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}

/// Runs `body` on fresh review, social and feed stores of `engine` (see `withStore`).
func withReviewStores(_ engine: StoreEngine, _ body: @Sendable (any ReviewStoresHarness) async throws -> Void)
    async throws
{
    switch engine {
    case .sqlite:
        try await body(SQLiteHarness(environment: try TestEnvironment()))
    case .postgres:
        try await withPostgresEngine { engine in try await body(PostgresHarness(engine: engine)) }
    }
}

extension ReviewStoresHarness {
    /// A place to review, in its own name.
    func makePlace(_ name: String) async throws -> Int64 {
        try await insert([PlaceDraft(name: name, lat: 37.5, lng: 127.0)])[0].id
    }

    /// Creates a review without a key, photos or a before-commit step; answers it.
    func review(
        place: Int64, author: Int64, rating: Int = 4, text: String = "Juicy.", photos: [PhotoSize] = [],
        at time: Timestamp
    ) async throws -> Review {
        let outcome = try await reviews.createReview(
            ReviewDraft(placeID: place, authorID: author, rating: rating, text: text), photos: photos,
            idempotency: nil, at: time, beforeCommit: { _ in })
        guard case .created(let review) = outcome else { throw HarnessFailure("review not created: \(outcome)") }
        return review
    }
}

/// A step of a test's setup that did not come out as it must.
struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension OwnerOnlyChange {
    /// The value of a change that was done, else `nil`.
    var done: Value? {
        if case .done(let value) = self { return value }
        return nil
    }

    var isForbidden: Bool {
        if case .forbidden = self { return true }
        return false
    }

    var isNotFound: Bool {
        if case .notFound = self { return true }
        return false
    }
}

/// Every item of a keyset-paged list, page by page, checking that `next` is `nil` exactly at the
/// end (a full page with more to come, never an empty page before the end).
func allPages<Item: Sendable>(limit: Int, _ page: (TimeKey?) async throws -> KeysetPage<Item>) async throws
    -> [Item]
{
    var items: [Item] = []
    var after: TimeKey?
    for _ in 0..<10_000 {
        let current = try await page(after)
        items += current.items
        guard let next = current.next else { break }
        #expect(current.items.count == limit)
        after = next
    }
    return items
}

/// Times in milliseconds from a fixed origin, so that tests set every `at:` by hand.
func moment(_ offset: Int64) -> Timestamp {
    Timestamp(milliseconds: 1_800_000_000_000 + offset)
}

/// A value several tasks write (what a before-commit step saw).
final class Recorded<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
    func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    var current: Value { value.withLock { $0 } }
}
