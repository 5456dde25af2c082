import Foundation
import Logging
import PostgresNIO
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// The storage engines that implement `PlaceStore`; conformance tests run once for each.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The engines a test runs on: both when `scripts/postgres` has started a cluster (or when
    /// `BURGERMAP_TEST_REQUIRE_SERVERS=1`, which `scripts/test` sets, so that a missing cluster
    /// fails there rather than passing on SQLite alone); SQLite alone otherwise, said in one line
    /// (`TestServers.skipNotice`), so that a plain `swift test` skips the PostgreSQL cases instead
    /// of failing each of them.
    static let available: [StoreEngine] = {
        if TestServers.postgresRuns { return allCases }
        TestServers.sayOnce()
        return [.sqlite]
    }()
}

/// The servers the tests use besides SQLite files (PostgreSQL from scripts/postgres, SeaweedFS
/// from scripts/seaweedfs): a plain `swift test` without them skips what needs them, with one
/// line that says how to run it; `scripts/test` requires them.
enum TestServers {
    /// `scripts/test` sets this, so that a server that failed to start fails the tests there.
    static let required = ProcessInfo.processInfo.environment["BURGERMAP_TEST_REQUIRE_SERVERS"] == "1"

    /// Whether the PostgreSQL cases run.
    static let postgresRuns =
        required || !(ProcessInfo.processInfo.environment["BURGERMAP_TEST_DATABASE_URL"] ?? "").isEmpty

    /// Whether the tests with photos in an S3 bucket run.
    static let objectStoreRuns =
        required || !(ProcessInfo.processInfo.environment["BURGERMAP_TEST_S3_ENDPOINT"] ?? "").isEmpty

    /// The one line a plain `swift test` prints when it skips what needs a server.
    static let skipNotice =
        "Skipped: the PostgreSQL cases (BURGERMAP_TEST_DATABASE_URL is not set) and the S3 cases "
        + "(BURGERMAP_TEST_S3_ENDPOINT is not set). Run `scripts/postgres scripts/seaweedfs swift test` "
        + "for them, or scripts/test for everything."

    private static let said: Void = {
        FileHandle.standardError.write(Data((skipNotice + "\n").utf8))
    }()

    /// Prints `skipNotice`, once per run.
    static func sayOnce() { _ = said }

    /// Skips the running test (Swift Testing's cancellation: it is reported as skipped, not as
    /// failed) when `runs` is false.
    static func skipUnless(_ runs: Bool) throws {
        guard !runs else { return }
        sayOnce()
        try Test.cancel()
    }
}

/// A store under test with what the tests need beside the `PlaceStore` API: seeding places
/// without a creator, users, and review counts.
protocol StoreHarness: Sendable {
    var store: any PlaceStore { get }
    /// Stores places without a creator, as an import does, in order.
    func insert(_ drafts: [PlaceDraft]) async throws -> [Place]
    /// A user id that may create places.
    func makeUser(_ name: String) async throws -> Int64
    /// Sets a place's review count and rating sum, as reviews would.
    func setReviews(placeID: Int64, count: Int, ratingSum: Int) async throws
}

/// The SQLite engine in a temporary folder (`TestEnvironment`).
struct SQLiteHarness: StoreHarness {
    let environment: TestEnvironment
    var store: any PlaceStore { environment.database }

    func insert(_ drafts: [PlaceDraft]) async throws -> [Place] { try await environment.insert(drafts) }

    func makeUser(_ name: String) async throws -> Int64 {
        try await environment.database.createUser(email: "\(name)@example.com", passwordHash: "-", nickname: name).id
    }

    func setReviews(placeID: Int64, count: Int, ratingSum: Int) async throws {
        try await environment.database.pool.write { db in
            let cells = PlaceCellsTable(db)
            let before = try cells.member(id: placeID)
            try db.execute(
                sql: "UPDATE places SET review_count = ?, rating_sum = ? WHERE id = ?",
                arguments: [count, ratingSum, placeID])
            try cells.maintain(placeID: placeID, before: before)
        }
    }
}

/// The PostgreSQL engine in a schema of its own on the cluster that scripts/postgres starts.
struct PostgresHarness: StoreHarness {
    let engine: PostgresEngine
    var store: any PlaceStore { engine.places }

    func insert(_ drafts: [PlaceDraft]) async throws -> [Place] {
        var places: [Place] = []
        for draft in drafts {
            let rows = try await engine.pool.query(
                """
                INSERT INTO places (name, lat, lng, address, city, province, postal_code, country, phone, category,
                    website, source, external_id, created_at, updated_at, search_name, search_address, cell, names,
                    opening_hours, timezone, attributes, search_names)
                VALUES (\(draft.name), \(draft.lat), \(draft.lng), \(draft.address), \(draft.city), \(draft.province),
                    \(draft.postalCode), \(draft.country), \(draft.phone), \(draft.category), \(draft.website),
                    \(draft.source), \(draft.externalId), 0, 0, \(draft.searchName), \(draft.searchAddress),
                    \(PlaceCells.key(lat: draft.lat, lng: draft.lng)), \(draft.storedNames), \(draft.openingHours),
                    \(draft.timeZone), \(draft.attributes), \(draft.searchNames))
                RETURNING \(unescaped: PostgresPlaceStore.columns)
                """)
            let inserted = try await PostgresPlaceStore.places(rows)
            try await engine.pool.withConnection { connection in
                try await PostgresSearchPairs(connection: connection, logger: engine.logger).list(
                    placeIDs: inserted.map(\.id))
                for place in inserted {
                    try await PostgresPlaceCells(connection: connection, logger: engine.logger).maintain(
                        placeID: place.id, before: nil)
                }
            }
            places += inserted
        }
        return places
    }

    func makeUser(_ name: String) async throws -> Int64 {
        let rows = try await engine.pool.query(
            """
            INSERT INTO users (email, email_key, password_hash, nickname, nickname_key, created_at, updated_at)
            VALUES (\(name + "@example.com"), \(name + "@example.com"), '-', \(name), \(name), 0, 0)
            RETURNING id
            """)
        for try await id in rows.decode(Int64.self) { return id }
        throw StorageError.rowVanished("users")
    }

    func setReviews(placeID: Int64, count: Int, ratingSum: Int) async throws {
        try await engine.pool.transaction(logger: engine.logger) { connection in
            let cells = PostgresPlaceCells(connection: connection, logger: engine.logger)
            let before = try await cells.member(id: placeID)
            try await connection.query(
                "UPDATE places SET review_count = \(Int64(count)), rating_sum = \(Int64(ratingSum)) WHERE id = \(placeID)",
                logger: engine.logger)
            try await cells.maintain(placeID: placeID, before: before)
        }
    }
}

/// The cluster's URL that scripts/postgres sets.
func testDatabaseURL() throws -> PostgresDatabaseURL {
    guard let text = ProcessInfo.processInfo.environment["BURGERMAP_TEST_DATABASE_URL"], !text.isEmpty else {
        try TestServers.skipUnless(TestServers.postgresRuns)
        throw PostgresTestSetup.missingURL
    }
    return try PostgresDatabaseURL(text)
}

enum PostgresTestSetup: Error, CustomStringConvertible {
    case missingURL

    var description: String {
        "BURGERMAP_TEST_DATABASE_URL is not set, so the PostgreSQL tests have no server: run the tests through "
            + "scripts/test, or as `scripts/postgres swift test`, which starts a throw-away PostgreSQL + PostGIS cluster"
    }

}

/// Runs `body` on a fresh store of `engine`: a new SQLite file, or a new PostgreSQL schema that
/// is dropped afterwards (so that tests run in parallel on one cluster).
func withStore(_ engine: StoreEngine, _ body: @Sendable (any StoreHarness) async throws -> Void) async throws {
    switch engine {
    case .sqlite:
        try await body(SQLiteHarness(environment: try TestEnvironment()))
    case .postgres:
        try await withPostgresEngine { engine in try await body(PostgresHarness(engine: engine)) }
    }
}

/// Runs `body` on the PostgreSQL engine of a new `TestEnvironment`, the one place tests open
/// an engine (a schema of its own on the throw-away cluster).
func withPostgresEngine(_ body: @Sendable (PostgresEngine) async throws -> Void) async throws {
    let environment = try await TestEnvironment(.postgres)
    try await body(try #require(environment.postgres))
    withExtendedLifetime(environment) {}
}
