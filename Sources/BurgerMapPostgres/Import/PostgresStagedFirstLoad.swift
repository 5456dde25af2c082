import BurgerMapCore
import Logging
import PostgresNIO
import Synchronization

/// A moment of a staged first load (`PostgresStagedFirstLoad`), at which tests end it as a kill
/// would.
package enum FirstLoadMoment: Sendable, CaseIterable {
    /// The staging table exists, empty.
    case staged
    /// Every row is in the staging table; no index is built yet.
    case copied
    /// The first index is built and the others are building.
    case indexing
    /// Inside the swap's transaction, the old table dropped and the staging table renamed, not
    /// committed.
    case swapping
}

/// The first load of an empty `places`, as osm2pgsql loads: into a staging table that no reader
/// sees, whose indexes are then built at once on separate connections, and which takes
/// `places`'s place in one short transaction.
///
/// 1. On a connection of its own (the loader), under a session advisory lock (one first load
///    of a schema at a time; a killed loader's lock goes with its connection): a leftover
///    staging table of a killed load is dropped, and `places_first_load` is created with
///    `places`'s columns, defaults and checks and no index.
/// 2. The rows go in through COPY (`copyFirstLoad`); repeated ids are deleted.
/// 3. `places`'s foreign keys are added to it, then every index of `places` is built on it
///    from the catalog's definitions by `builders` connections, largest first
///    (`PostgresPlacesTableSwap.Plan`).
/// 4. The import's event and the cluster cells are read from it.
/// 5. One transaction (on the loader) locks `places`, checks that it is still empty, drops it, renames the
///    staging table and its indexes and constraints to `places`'s names, gives back the
///    identity, triggers and the other tables' foreign keys (`PostgresPlacesTableSwap`), writes the
///    cells, the event and the attribution, and commits.
///
/// Readers read the empty `places` until the commit and the full one after it; none ever sees a
/// table without its indexes. A load killed before the commit leaves `places` as it was (its
/// staging table is dropped by the next first load); the commit itself is atomic.
///
/// Measured (`scripts/bench-import --engines`, 1,000,000 wide rows, 2 cores): before, one
/// transaction built the indexes one after another: 23.4 s. The builds are most of that (the GIN
/// trigram indexes 4.0 s over names and 6.8 s over address lines, the rest 5.2 s: see
/// docs/performance/import.md), and PostgreSQL builds a GIN index on one core.
struct PostgresStagedFirstLoad {
    let sink: PostgresPlaceImportSink
    let feed: PlaceImportFeed
    let time: Int64

    static let table = "places_first_load"
    /// Smaller files load in the import's transaction (`firstLoadInPlace()`): below about
    /// 80,000 rows the whole load takes well under a second, and the staging's forty-odd DDL
    /// statements and two more connections cost more than the parallel builds save (the test
    /// suite, whose imports are all small, ran 25% longer with every first load staged).
    static let minimumBytes: Int64 = 8 << 20
    /// How many connections build the indexes: two cores, two builds (each with
    /// `maintenance_work_mem` of 512 MB).
    static let builders = 2
    /// The session advisory lock of first loads: (this, the schema's hash).
    static let lockKey: Int32 = 0x6669_7273  // "firs"

    var logger: Logger { sink.logger }

    /// The import's summary, or nil when `places` holds places (the usual import then runs).
    func runIfEmpty() async throws -> ImportSummary? {
        let loader = try await connect(id: 0)
        do {
            let summary = try await load(on: loader)
            try? await loader.close()
            return summary
        } catch {
            // Closing the loader ends its transaction and its advisory lock on the server. A
            // failed load's table is then dropped on a connection of its own, under the lock (a
            // killed load's goes at the next load). The loader is never sent another statement:
            // postgres-nio 1.33 never answers one sent just as the server closes the connection.
            try? await loader.close()
            if let cleaner = try? await connect(id: 9) {
                _ = try? await cleaner.query(
                    "SELECT pg_advisory_lock(\(Self.lockKey), hashtext(current_schema()))", logger: logger)
                _ = try? await cleaner.query("DROP TABLE IF EXISTS \(unescaped: Self.table)", logger: logger)
                try? await cleaner.close()
            }
            throw error
        }
    }

    private func load(on loader: PostgresConnection) async throws -> ImportSummary? {
        try await loader.query(
            "SELECT pg_advisory_lock(\(Self.lockKey), hashtext(current_schema()))", logger: logger)
        var run = PostgresImportRun(connection: loader, logger: logger, feed: feed, time: time)
        guard try await run.isEmpty() else { return nil }
        var backends = [try await backend(of: loader)]
        try await run.execute("DROP TABLE IF EXISTS \(unescaped: Self.table)")
        try await run.execute(
            """
            CREATE TABLE \(unescaped: Self.table) (LIKE places INCLUDING DEFAULTS INCLUDING CONSTRAINTS
                INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMPRESSION)
            """)
        try await observe(.staged, backends)
        try await run.execute("SET work_mem = '256MB'")
        let summary = try await run.copyFirstLoad(into: Self.table)
        // The pairs' rows name places that only the swap brings; their common pairs are named
        // in the swap's transaction.
        try await run.listSearchPairs(namingCommon: false)
        try await observe(.copied, backends)

        let plan = try await PostgresPlacesTableSwap.Plan.read(on: loader, staging: Self.table, logger: logger)
        for key in plan.foreignKeys {
            try await run.execute("\(unescaped: key.addToStaging)")
        }
        var helpers: [PostgresConnection] = []
        do {
            for id in 1..<Self.builders {
                helpers.append(try await connect(id: id))
                backends.append(try await backend(of: helpers[helpers.count - 1]))
            }
            try await build(plan.indexes.map(\.createOnStaging), on: [loader] + helpers, backends: backends)
        } catch {
            for helper in helpers { try? await helper.close() }
            throw error
        }
        for helper in helpers { try? await helper.close() }

        let written = summary.inserted > 0
        let event =
            written
            ? try await PostgresPlaceImportSink.importEvent(
                source: feed.source, time: time, table: Self.table, cells: run.idsMayRepeat ? nil : run.copiedCells,
                on: loader, logger: logger) : nil
        let cells =
            written
            ? try await PostgresPlaceCells(connection: loader, logger: logger).rows(readingFrom: Self.table) : []
        // The swap runs on the loader, which holds the advisory lock, in a transaction of its own.
        // On failure `runIfEmpty` closes the loader, which rolls this transaction back.
        try await run.execute("BEGIN")
        try await PostgresPlacesTableSwap(connection: loader, logger: logger).swap(plan)
        // The builders' connections are closed by now: only the loader's is the load's.
        try await observe(.swapping, [backends[0]])
        if written { try await PostgresPlaceCells(connection: loader, logger: logger).replaceAll(with: cells) }
        if let pairs = run.searchPairs {
            try await PostgresSearchPairs(connection: loader, logger: logger).replaceCommon(with: pairs)
        }
        if let event {
            try await PostgresEventStore.record(event, at: Timestamp(milliseconds: time), on: loader, logger: logger)
        }
        try await PostgresPlaceImportSink.recordAttribution(of: feed, on: loader, logger: logger)
        try await run.execute("COMMIT")
        sink.events.committed()
        return summary
    }

    /// Runs `statements` on `connections` at once, each connection taking the next statement
    /// when its last is done.
    private func build(_ statements: [String], on connections: [PostgresConnection], backends: [Int32]) async throws {
        let queue = BuildQueue()
        let logger = logger
        try await withThrowingTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask {
                    try await connection.query("SET maintenance_work_mem = '512MB'", logger: logger)
                    while true {
                        let index = queue.state.withLock { state -> Int? in
                            guard state.next < statements.count else { return nil }
                            defer { state.next += 1 }
                            return state.next
                        }
                        guard let index else { return }
                        try Task.checkCancellation()
                        if connection.isClosed { throw PostgresEngineError.server("a first load's connection closed") }
                        // Definitions come from the catalog, never from a client.
                        try await connection.query("\(unescaped: statements[index])", logger: logger)
                        let first = queue.state.withLock { state in
                            state.done += 1
                            return state.done == 1
                        }
                        if first { try await observe(.indexing, backends) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private func observe(_ moment: FirstLoadMoment, _ backends: [Int32]) async throws {
        try await sink.firstLoadObserver?(moment, backends)
    }

    /// The name the load's connections show in `pg_stat_activity`.
    static let applicationName = "burgermap first load"

    private func connect(id: Int) async throws -> PostgresConnection {
        var configuration = sink.events.connectionConfiguration
        configuration.options.additionalStartupParameters.append(("application_name", Self.applicationName))
        return try await PostgresConnection.connect(configuration: configuration, id: 1_000 + id, logger: logger)
    }

    private func backend(of connection: PostgresConnection) async throws -> Int32 {
        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int32.self) {
            return pid
        }
        throw StorageError.unexpectedAnswer("the connection's server process")
    }
}

/// The next statement to run and how many are done, shared by the builders.
private final class BuildQueue: Sendable {
    let state = Mutex((next: 0, done: 0))
}
