import BurgerMapCore
import CGeoIndex
import Logging
import PostgresNIO

/// The PostgreSQL engine's side of an import (`PlaceImportSink`), with the SQLite engine's rules
/// and counts.
///
/// One transaction per file: a failed import rolls back, and a killed one loses its connection,
/// which rolls back too. An empty `places` is loaded into a staging table that takes its place
/// in one short transaction (`PostgresStagedFirstLoad`), or, for a small file, straight into
/// `places` with its indexes set aside (`firstLoadInPlace()`). Otherwise they stream through `COPY places_import_stage FROM STDIN` into a
/// temporary table (dropped at commit or rollback), and a few set-based statements apply them:
///
/// 1. Rows without an id: PostGIS finds every place within 25 m (plus a margin) whose name may be
///    the same (`places_import_near`); the importer decides each pair exactly as SQLite does and
///    settles who takes which place in file order (`settleNameMatches`), then copies the outcome
///    back into `places_import_named`.
/// 2. Repeated ids: rows whose id an earlier row of the file gave, or whose place a row without
///    an id took first, go to `places_import_dup` (`findDuplicates`).
/// 3. One UPDATE of every matched place whose fields differ; one INSERT of the rest, in file
///    order (so that new ids follow the file, as on SQLite).
///
/// Values from the file travel only as COPY data or bound parameters; the SQL text holds nothing
/// but the constants of this file (and, on a first load, index definitions from the catalog).
///
/// Unlike SQLite, PostgreSQL lets other writers work during an import (API edits, review counts).
/// One that creates a place with the same (source, id) as a new row of the file between the
/// matching and the INSERT makes the INSERT fail on the unique index, and the import roll back.
public struct PostgresPlaceImportSink: PlaceImportSink {
    let pool: PostgresPool
    let logger: Logger
    let events: PostgresEventStore
    /// Called at each moment of a staged first load with the server processes of its
    /// connections: tests end the load there as a kill would.
    package var firstLoadObserver: (@Sendable (FirstLoadMoment, _ backends: [Int32]) async throws -> Void)?
    /// The least size of a file that a first load stages (`PostgresStagedFirstLoad`).
    package var stagedFirstLoadMinimumBytes = PostgresStagedFirstLoad.minimumBytes

    init(pool: PostgresPool, logger: Logger, events: PostgresEventStore) {
        self.pool = pool
        self.logger = logger
        self.events = events
        firstLoadObserver = nil
    }

    public func importPlaces(from feed: PlaceImportFeed) async throws -> ImportSummary {
        let time = Timestamp.now().milliseconds
        let logger = logger
        do {
            if (feed.totalBytes ?? .max) >= stagedFirstLoadMinimumBytes,
                let summary = try await PostgresStagedFirstLoad(sink: self, feed: feed, time: time).runIfEmpty()
            {
                return summary
            }
            return try await events.transaction(logger: logger) { connection in
                var run = PostgresImportRun(connection: connection, logger: logger, feed: feed, time: time)
                var summary = try await run.run()
                if summary.inserted + summary.updated > 0 {
                    try await Self.recordImport(
                        source: feed.source, time: time, cells: run.idsMayRepeat ? nil : run.copiedCells,
                        on: connection, logger: logger)
                }
                if feed.removeMissing {
                    try await Self.removeMissingPlaces(of: feed, into: &summary, on: connection, logger: logger)
                }
                try await Self.recordAttribution(of: feed, on: connection, logger: logger)
                return summary
            }
        } catch {
            // postgres-nio describes every server error as a generic "Database error".
            if let (state, message) = PostgresEngineError.serverMessage(error) {
                throw PostgresEngineError.server("import: \(message) (SQLSTATE \(state))")
            }
            throw error
        }
    }
}

extension PostgresPlaceImportSink {
    /// The source's attribution (an OpenStreetMap import's "© OpenStreetMap contributors").
    static func recordAttribution(of feed: PlaceImportFeed, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        guard let attribution = feed.attribution else { return }
        try await connection.query(
            """
            INSERT INTO place_source_attributions (source, attribution) VALUES (\(feed.source), \(attribution))
            ON CONFLICT (source) DO UPDATE SET attribution = excluded.attribution
            """, logger: logger)
    }

    /// `--remove-missing`, as the SQLite engine does it: the source's places whose external id
    /// the file did not hold go, except those with reviews, in the import's transaction; the
    /// clusters' cells are counted again and one `places.removed` event names what went.
    static func removeMissingPlaces(
        of feed: PlaceImportFeed, into summary: inout ImportSummary, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let seen = Array(feed.seenExternalIDs)
        let rows = try await connection.query(
            """
            WITH deleted AS (
                DELETE FROM places
                WHERE source = \(feed.source) AND external_id IS NOT NULL AND review_count = 0
                    AND NOT (external_id = ANY(\(seen)))
                RETURNING id, lat, lng, external_id
            )
            SELECT d.id, d.lat, d.lng, d.external_id, k.kept
            FROM (
                SELECT count(*) AS kept FROM places
                WHERE source = \(feed.source) AND external_id IS NOT NULL AND review_count > 0
                    AND NOT (external_id = ANY(\(seen)))
            ) AS k
            LEFT JOIN deleted AS d ON true
            ORDER BY d.id
            """, logger: logger)
        var removed = PlaceBatchFacts()
        for try await (id, lat, lng, externalID, kept) in rows.decode(
            (Int64?, Double?, Double?, String?, Int64).self)
        {
            summary.keptForReviews = Int(kept)
            guard let id, let lat, let lng, let externalID else { continue }
            removed.add(id: id, lat: lat, lng: lng)
            if summary.removedIDs.count < ImportSummary.keptSkips { summary.removedIDs.append(externalID) }
        }
        summary.removed = removed.count
        guard removed.count > 0 else { return }
        try await PostgresPlaceCells(connection: connection, logger: logger).rebuild()
        if let event = removed.event(.placesRemoved, source: feed.source) {
            try await PostgresEventStore.record(event, at: .now(), on: connection, logger: logger)
        }
    }
}

extension PostgresEngine {
    /// The engine's side of `PlaceImport`.
    public var placeImport: PostgresPlaceImportSink {
        PostgresPlaceImportSink(pool: pool, logger: logger, events: events)
    }
}

/// One import inside its transaction.
struct PostgresImportRun {
    let connection: PostgresConnection
    let logger: Logger
    let feed: PlaceImportFeed
    let time: Int64

    /// Items taken from the feed.
    var read = 0
    /// Rows copied with and without an id.
    var rowsWithID = 0
    var rowsWithoutID = 0
    /// The hashes of the ids copied so far, and whether one came twice: when none did, no id
    /// repeats and the search for repeats is skipped (1.9 s of a 1,000,000-row first load).
    var idHashes = Set<Int>()
    var idsMayRepeat = false
    /// A first load's cells, gathered as its rows are copied, place by place as SQLite's import
    /// gathers them (`PlaceBatchFacts`): the import event's cells without reading the table back
    /// (reading them back level by level added 2.5 s to a 1,000,000-row first load). Kept only
    /// by `copyFirstLoad`; `nil` when ids repeat (the rows deleted then would count).
    var copiedCells: PlaceBatchFacts?
    /// Skips the readers reported: how many, and the first `keptSkips` with their positions.
    var readerSkipped = 0
    var readerSkips: [(position: Int, skip: ImportSkip)] = []
    /// A first load's search pairs, counted as its rows are copied (`copyFirstLoad`).
    var searchPairs: SearchPairCount?

    init(connection: PostgresConnection, logger: Logger, feed: PlaceImportFeed, time: Int64) {
        self.connection = connection
        self.logger = logger
        self.feed = feed
        self.time = time
    }

    /// The stage's columns, in COPY order.
    static let stageColumns = [
        "pos", "name", "lat", "lng", "address", "city", "province", "postal_code", "country", "phone", "category",
        "website", "external_id", "search_name", "search_address", "cell", "names", "opening_hours", "timezone",
        "attributes", "search_names",
    ]
    /// The descriptive fields an import writes, as `places` and the stage name them.
    static let fields = [
        "name", "lat", "lng", "address", "city", "province", "postal_code", "country", "phone", "category",
        "website", "search_name", "search_address", "cell", "names", "opening_hours", "timezone", "attributes",
        "search_names",
    ]

    mutating func run() async throws -> ImportSummary {
        // Sorts and hashes over a million staged rows stay in memory.
        try await execute("SET LOCAL work_mem = '256MB'")
        if try await lockForFirstLoad() { return try await firstLoadInPlace() }
        try await execute(
            """
            CREATE TEMPORARY TABLE places_import_stage (
                pos BIGINT NOT NULL, name TEXT NOT NULL, lat DOUBLE PRECISION NOT NULL, lng DOUBLE PRECISION NOT NULL,
                address TEXT, city TEXT, province TEXT, postal_code TEXT, country TEXT, phone TEXT, category TEXT,
                website TEXT, external_id TEXT, search_name TEXT, search_address TEXT, cell BIGINT, names TEXT,
                opening_hours TEXT, timezone TEXT, attributes TEXT, search_names TEXT
            ) ON COMMIT DROP
            """)
        try await copyRows(into: "places_import_stage", columns: Self.stageColumns) { position, _ in position }
        try await execute("CREATE TEMPORARY TABLE places_import_named (pos BIGINT, place_id BIGINT) ON COMMIT DROP")
        try await execute("CREATE TEMPORARY TABLE places_import_moved (cell BIGINT) ON COMMIT DROP")
        try await execute("CREATE TEMPORARY TABLE places_import_written (id BIGINT) ON COMMIT DROP")
        let named = rowsWithoutID > 0 ? try await settleNameMatches() : 0
        if named > 0 { try await execute("ANALYZE places_import_named") }
        let (duplicates, duplicateSkips) =
            idsMayRepeat || (named > 0 && rowsWithID > 0) ? try await findDuplicates(named: named) : (0, [])
        let updated = rowsWithID > 0 || named > 0 ? try await updateMatches(named: named, duplicates: duplicates) : 0
        let inserted = try await insertNew(named: named, duplicates: duplicates)
        if inserted.all > 0 || updated > 0 {
            try await PostgresSearchPairs(connection: connection, logger: logger).list(
                placesIn: "places_import_written")
            try await PostgresPlaceCells(connection: connection, logger: logger).rebuild()
        }
        // Every row with an id that repeats none matched a place or was inserted; so did every
        // row without one.
        let matched = rowsWithID - duplicates - inserted.withID + named
        return summary(
            inserted: inserted.all, updated: updated, unchanged: matched - updated, duplicates: duplicates,
            duplicateSkips: duplicateSkips)
    }

    func summary(
        inserted: Int, updated: Int, unchanged: Int, duplicates: Int,
        duplicateSkips: [(position: Int, skip: ImportSkip)]
    ) -> ImportSummary {
        var summary = ImportSummary()
        summary.read = read
        summary.inserted = inserted
        summary.updated = updated
        summary.unchanged = unchanged
        summary.skipped = readerSkipped + duplicates
        summary.skips = (readerSkips + duplicateSkips).sorted { $0.position < $1.position }
            .prefix(ImportSummary.keptSkips).map(\.skip)
        return summary
    }

    func execute(_ query: PostgresQuery) async throws {
        try await connection.query(query, logger: logger)
    }
}
