import Foundation
import PostgresNIO
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres

/// PostgreSQL's staged first load (`PostgresStagedFirstLoad`): `places` comes out of it as the
/// migrations made it, readers see the empty table until the swap commits, and a load whose
/// connections all drop at any moment (as they do when the process is killed) leaves `places`
/// as it was and the next load works.
@Suite("PostgreSQL first load through a staging table")
struct PostgresFirstLoadTests {
    /// 2,000 places on a seeded grid, and one repeated id.
    static func csv() -> String {
        var generator = SeededGenerator(seed: 40)
        var lines = ["name,lat,lng,id,address"]
        for index in 0..<2_000 {
            let lat = 37.4 + Double.random(in: 0..<0.2, using: &generator)
            let lng = 126.9 + Double.random(in: 0..<0.2, using: &generator)
            lines.append("Burger \(index),\(lat),\(lng),p\(index),\(index) Main St")
        }
        lines.append("Repeat,37.5,127.0,p7,7 Main St")
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the catalog says of `places`: columns in order (type, NOT NULL, identity, generated,
    /// default), indexes, constraints (its own and other tables' keys to it), triggers.
    static func catalog(_ client: PostgresPool) async throws -> [String] {
        var lines: [String] = []
        let rows = try await client.query(
            """
            SELECT 'columns ' || string_agg(
                    a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' '
                    || a.attidentity::text || a.attgenerated::text || coalesce(' ' || pg_get_expr(d.adbin, d.adrelid), ''),
                    ', ' ORDER BY a.attnum)
            FROM pg_attribute AS a LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE a.attrelid = 'places'::regclass AND a.attnum > 0 AND NOT a.attisdropped
            UNION ALL
            SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'places'
            UNION ALL
            SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
            FROM pg_constraint WHERE conrelid = 'places'::regclass OR confrelid = 'places'::regclass
            UNION ALL
            SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger
            WHERE tgrelid = 'places'::regclass AND NOT tgisinternal
            ORDER BY 1
            """)
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines
    }

    /// Searches of two code points (through the load's `place_search_pairs`) find what a
    /// brute-force scan of the loaded places finds: digits that a few names hold, letters of the
    /// address lines, none.
    static func expectPairSearchesEqualBruteForce(_ environment: TestEnvironment) async throws {
        let places = try await environment.allPlaces().map { (place: $0, reviews: 0) }
        let source = PlaceSearchWalkTests.tiers(environment)
        for q in ["19", "ma", "st", "99", "zz"] {
            let hits = try await PlaceSearchWalkTests.allPages(
                SearchQuery(text: q, limit: 50), cap: TieredSearch.matchCap, source)
            #expect(hits == bruteForceSearch(places, q: q), "q=\(q)")
            #expect(q == "zz" || !hits.isEmpty)
        }
    }

    /// The engine's import, staging every first load (the tests' files are small).
    static func staging(_ postgres: PostgresEngine) -> PostgresPlaceImportSink {
        var sink = postgres.placeImport
        sink.stagedFirstLoadMinimumBytes = 0
        return sink
    }

    static func count(_ client: PostgresPool, _ sql: String) async throws -> Int64 {
        for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int64.self) {
            return value
        }
        return -1
    }

    @Test("a first load leaves places with the catalog the migrations made, ids and clusters going on from it")
    func catalogKept() async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        let before = try await Self.catalog(postgres.pool)
        #expect(before.contains { $0.hasPrefix("index CREATE INDEX places_by_search_address ON") })
        #expect(before.contains { $0.hasPrefix("trigger CREATE TRIGGER places_keep_reviewed") })
        #expect(before.contains { $0.hasPrefix("constraint reviews reviews_place_id_fkey FOREIGN KEY") })

        let file = try environment.file("places.csv", Self.csv())
        let summary = try await PlaceImport(sink: Self.staging(postgres)).load(file: file, source: "grid")
        #expect(summary.inserted == 2_000 && summary.skipped == 1)
        #expect(summary.skips.map(\.description) == ["line 2002: id \"p7\" already given on line 9"])
        let after = try await Self.catalog(postgres.pool)
        #expect(after == before)
        #expect(try await Self.count(postgres.pool, "SELECT count(*) FROM places") == 2_000)
        #expect(
            try await Self.count(
                postgres.pool,
                "SELECT count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relname LIKE 'places_first_load%'"
            ) == 0)
        #expect(try await Self.count(postgres.pool, "SELECT count(*) FROM place_cells") > 0)
        let imported = try await Self.count(
            postgres.pool,
            "SELECT count(*) FROM events WHERE kind = 'places.imported' AND payload LIKE '%\"count\":2000%'")
        #expect(imported == 1)
        try await Self.expectPairSearchesEqualBruteForce(environment)

        // The identity goes on after the loaded ids; the next import matches by id.
        let user = try await environment.makeUser("mapper")
        let place = try await environment.stores.places.createPlace(
            PlaceDraft(name: "Added", lat: 37.55, lng: 127.05), by: user
        ).place
        let highest = try await Self.count(postgres.pool, "SELECT max(id) FROM places WHERE name <> 'Added'")
        #expect(place.id > highest)
        let again = try await PlaceImport(sink: Self.staging(postgres)).load(file: file, source: "grid")
        #expect(again.inserted == 0 && again.unchanged == 2_000)
        let near = try await environment.namesNear(37.5, 127.0, radius: 3_000)
        #expect(near.count > 10 && near.count < 2_001)
    }

    @Test(
        "a first load whose connections all drop at any moment leaves places empty and whole, and the next load works",
        arguments: FirstLoadMoment.allCases)
    func killedLoad(at moment: FirstLoadMoment) async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        let client = postgres.pool
        let before = try await Self.catalog(client)
        var sink = Self.staging(postgres)
        sink.firstLoadObserver = { reached, backends in
            // Readers meanwhile see the table as it was, with its indexes (inside the swap, they
            // wait for its lock).
            if reached != .swapping {
                #expect(try await Self.count(client, "SELECT count(*) FROM places") == 0)
                #expect(try await Self.catalog(client) == before)
            }
            guard reached == moment else { return }
            for try await _ in try await client.query(
                """
                SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
                WHERE pid = ANY(\(backends)::INT4[]) AND application_name = \(PostgresStagedFirstLoad.applicationName)
                """
            ) {}
            // The process is gone at this moment: nothing of the load runs after it.
            throw Killed()
        }
        let file = try environment.file("places.csv", Self.csv())
        await #expect(throws: (any Error).self) {
            _ = try await PlaceImport(sink: sink).load(file: file, source: "grid", category: nil)
        }
        #expect(try await Self.count(client, "SELECT count(*) FROM places") == 0)
        #expect(try await Self.catalog(client) == before)
        #expect(try await Self.count(client, "SELECT count(*) FROM events WHERE kind = 'places.imported'") == 0)

        let summary = try await PlaceImport(sink: Self.staging(postgres)).load(file: file, source: "grid")
        #expect(summary.inserted == 2_000)
        #expect(try await Self.catalog(client) == before)
        #expect(try await Self.count(client, "SELECT count(*) FROM places") == 2_000)
        try await Self.expectPairSearchesEqualBruteForce(environment)
        #expect(
            try await Self.count(
                client,
                "SELECT count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relname LIKE 'places_first_load%'"
            ) == 0)
    }

    @Test("a place added while a first load runs makes it import nothing, and says so")
    func placeAddedMeanwhile() async throws {
        let environment = try await TestEnvironment(.postgres)
        let postgres = try #require(environment.postgres)
        var sink = Self.staging(postgres)
        let stores = environment.stores
        let user = try await environment.makeUser("mapper")
        sink.firstLoadObserver = { reached, _ in
            guard reached == .copied else { return }
            _ = try await stores.places.createPlace(PlaceDraft(name: "Meanwhile", lat: 37.5, lng: 127.0), by: user)
        }
        let file = try environment.file("places.csv", Self.csv())
        await #expect(throws: PostgresEngineError.placesAddedDuringFirstLoad) {
            _ = try await PlaceImport(sink: sink).load(file: file, source: "grid", category: nil)
        }
        #expect(try await environment.allPlaces().map(\.name) == ["Meanwhile"])
        #expect(
            try await Self.count(
                postgres.pool,
                "SELECT count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relname LIKE 'places_first_load%'"
            ) == 0)
    }
}

/// The end of a process, as a first load's observer plays it.
private struct Killed: Error {}
