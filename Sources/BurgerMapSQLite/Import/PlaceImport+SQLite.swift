import BurgerMapCore
import Foundation
import GRDB

/// Imports into the SQLite engine, which can also write on the calling thread.
extension PlaceImport where Sink == AppDatabase {
    /// An import into `database`.
    public init(database: AppDatabase) {
        self.init(sink: database)
    }

    /// The database this import writes to.
    public var database: AppDatabase { sink }

    /// Imports `file` into the SQLite database, synchronously (SQLite's writes are); the same as
    /// `load`.
    public func run(
        file: URL, format: ImportFormat? = nil, source: String? = nil, category: String? = nil,
        progress: ((ImportProgress) -> Void)? = nil
    ) throws -> ImportSummary {
        try Self.loadNow(
            file: file, format: format, source: source, category: category, progress: progress,
            apply: database.importPlacesNow)
    }
}

/// The SQLite engine's side of an import: the whole file in one write transaction, row by row
/// through `PlaceImportSession`.
extension AppDatabase: PlaceImportSink {
    public func importPlaces(from feed: PlaceImportFeed) async throws -> ImportSummary {
        try await pool.writeWithoutTransaction { db in try self.importPlaces(from: feed, into: db) }
    }

    /// `importPlaces(from:)` on the calling thread.
    func importPlacesNow(from feed: PlaceImportFeed) throws -> ImportSummary {
        try pool.writeWithoutTransaction { db in try self.importPlaces(from: feed, into: db) }
    }

    /// The import in one transaction, with its one `places.imported` event (none when it wrote
    /// no place).
    private func importPlaces(from feed: PlaceImportFeed, into db: Database) throws -> ImportSummary {
        var summary = ImportSummary()
        let rollbackJournal = try Self.leaveWALForFirstLoad(db)
        defer { if rollbackJournal { _ = try? String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") } }
        try db.inTransaction {
            var session = try PlaceImportSession(db: db, source: feed.source, locationWord: feed.locationWord)
            while let items = try feed.take() {
                for (position, item) in items {
                    try session.apply(item, at: position)
                }
                feed.applied(rows: session.summary.read)
            }
            try session.finish()
            if let event = session.event { try recordEvent(event, at: session.time, in: db) }
            summary = session.summary
            if feed.removeMissing { try removeMissingPlaces(of: feed, into: &summary, db) }
            if let attribution = feed.attribution {
                try db.execute(
                    sql: """
                        INSERT INTO place_source_attributions (source, attribution) VALUES (?, ?)
                        ON CONFLICT (source) DO UPDATE SET attribution = excluded.attribution
                        """, arguments: [feed.source, attribution])
            }
            return .commit
        }
        return summary
    }

    /// `--remove-missing`: deletes the source's places whose external id the file did not hold,
    /// except those with reviews (reviews keep their place), in the import's transaction, after
    /// its session put SpatiaLite's and place search's triggers back (so that both indexes follow
    /// the deletes); the clusters' cells are counted again, and one `places.removed` event
    /// names what went.
    private func removeMissingPlaces(of feed: PlaceImportFeed, into summary: inout ImportSummary, _ db: Database)
        throws
    {
        try db.execute(sql: "CREATE TEMP TABLE import_seen (external_id TEXT PRIMARY KEY) WITHOUT ROWID")
        defer { try? db.execute(sql: "DROP TABLE temp.import_seen") }
        let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO import_seen VALUES (?)")
        for id in feed.seenExternalIDs { try insert.execute(arguments: [id]) }
        let missing = """
            FROM places WHERE source = ? AND external_id IS NOT NULL
                AND external_id NOT IN (SELECT external_id FROM import_seen)
            """
        var removed = PlaceBatchFacts()
        let doomed = try Row.fetchCursor(
            db, sql: "SELECT id, lat, lng, external_id \(missing) AND review_count = 0 ORDER BY id",
            arguments: [feed.source])
        while let place = try doomed.next() {
            removed.add(id: place[0], lat: place[1], lng: place[2])
            if summary.removedIDs.count < ImportSummary.keptSkips { summary.removedIDs.append(place[3]) }
        }
        try db.execute(sql: "DELETE \(missing) AND review_count = 0", arguments: [feed.source])
        summary.removed = db.changesCount
        summary.keptForReviews =
            try Int.fetchOne(db, sql: "SELECT count(*) \(missing) AND review_count > 0", arguments: [feed.source]) ?? 0
        guard summary.removed > 0 else { return }
        try PlaceCellsTable(db).rebuild()
        if let event = removed.event(.placesRemoved, source: feed.source) {
            try recordEvent(event, at: .now(), in: db)
        }
    }

    /// A first load into an empty places table switches the database to a rollback journal for
    /// its one transaction. In WAL mode every page is written twice (to the log, then copied
    /// into the database by the checkpoint) and synced twice; new pages of a rollback-journal
    /// database are written once, and a crash still rolls the whole import back. SQLite allows
    /// the switch only while no other connection has the database open (a running server, for
    /// one), in which case the import simply stays in WAL mode. Returns whether it switched.
    private static func leaveWALForFirstLoad(_ db: Database) throws -> Bool {
        guard try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM places LIMIT 1)") == 0 else {
            return false
        }
        let mode = try? String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
        return mode?.lowercased() == "delete"
    }
}
