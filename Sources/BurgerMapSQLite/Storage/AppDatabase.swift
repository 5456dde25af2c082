import BurgerMapCore
import CGeoIndex
import Foundation
import GRDB
import GRDBSQLite

/// The service's SQLite + SpatiaLite database: one file in the data folder, opened as a WAL
/// pool with the SpatiaLite extension and the nearest-first R*Tree search on every connection.
///
/// Every read and write the service makes goes through an intent-named operation on this type
/// (see the `AppDatabase+…` extensions), so SQL stays in the storage layer.
public final class AppDatabase: Sendable {
    /// The connection pool (one writer, several readers). The engine's own: everything outside
    /// it goes through an intent-named operation, or through `benchmarkRead` / `benchmarkWrite`.
    let pool: DatabasePool

    /// Rings when a write that recorded an event commits (`recordEvent`).
    public let eventSignal = EventSignal()

    /// Where the database file lives.
    public let path: String

    /// Connections for the hot reads, run on the caller's thread (`read(_:)`).
    let callingThreadReaders: CallingThreadReaders

    /// Opens (creating and migrating if needed) the database at `path`.
    public init(path: String) throws {
        _ = Self.sqliteConfigured
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        configuration.maximumReaderCount = max(4, ProcessInfo.processInfo.activeProcessorCount * 2)
        configuration.prepareDatabase { db in
            try Self.prepareConnection(db)
        }
        pool = try Self.openPool(path: path, configuration: configuration)
        try Self.checkWritable(pool, path: path)
        Self.backfillLeftoverLog(pool)
        try Self.migrator.migrate(pool)
        // As many as the threads that run requests (Swift's cooperative pool: one per core).
        callingThreadReaders = CallingThreadReaders(
            path: path, configuration: configuration, limit: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Raw SQL for `burgermap-bench`, which seeds and counts rows that no operation of the service
    /// writes in bulk (follows, blocks, a million reviews). The service never calls it.
    package func benchmarkRead<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }

    /// Raw SQL writes for `burgermap-bench`'s seeding, in one transaction. The service never calls it.
    package func benchmarkWrite<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await pool.write(body)
    }

    /// Copies the write-ahead log into the file and empties it, for `burgermap-bench`, whose
    /// processes end without closing the database they loaded: the next one would otherwise copy
    /// the whole log again when it opens (`backfillLeftoverLog`). The service never calls it.
    package func benchmarkEmptyLog() async throws {
        try await pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// The pool on the file; a file SQLite cannot open because it is read-only gets the same
    /// clear refusal as one it opens for reading only.
    private static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        do {
            return try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            throw DatabaseFileError.readOnly(path)
        }
    }

    /// Copies into the database file whatever a process that did not close the database left in
    /// its write-ahead log, without waiting for anyone (a passive checkpoint).
    ///
    /// SQLite rebuilds the log's index when a process that was killed, or exited without closing,
    /// left it behind, and counts every frame as not yet copied; until the next write's
    /// checkpoint, every read then looks each page up in the log and reads it with `pread`,
    /// outside the memory map. The benchmark's 1,000,000 places were left so by the process that
    /// loaded them: 17 `pread` calls an answer, and the same-work nearby route answered 5,500
    /// instead of 7,700 times a second (medians of 5 alternating runs, 2026-11-27). Copying that
    /// log of 550 MB took about a second; a log that is empty or already copied costs nothing.
    /// Best effort: a checkpoint that cannot run now (another process's, a full disk) is left to
    /// the next write's. It runs before the migrations, so that it copies only what an earlier
    /// process left: this process's own writes are copied by SQLite's automatic checkpoint, as
    /// before (a log emptied here is written over from its start, in blocks the file system
    /// already gave it).
    private static func backfillLeftoverLog(_ pool: DatabasePool) {
        pool.writeWithoutTransaction { db in _ = try? db.checkpoint(.passive) }
    }

    /// A read for a request's hot path: on the calling thread when one of `callingThreadReaders`
    /// is free, else through the pool.
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        if let answer = try callingThreadReaders.read(body) { return answer }
        return try await pool.read(body)
    }

    /// `read(_:)` for a body that runs one statement, which SQLite reads from one snapshot by
    /// itself: no `BEGIN` and `COMMIT` around it (5% of a nearby request's CPU, `perf`). A body
    /// that runs two statements needs `read(_:)`, or they may see different commits.
    func readOneStatement<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        if let answer = try callingThreadReaders.read(isolated: false, body) { return answer }
        return try await pool.unsafeRead(body)
    }

    /// Opens the database file `burgermap.sqlite` inside `dataDirectory`, creating the folder.
    public convenience init(dataDirectory: URL) throws {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: dataDirectory.appendingPathComponent("burgermap.sqlite").path)
    }

    /// Process-wide SQLite settings, applied once before the first connection opens.
    private static let sqliteConfigured: Bool = bm_disable_memory_statistics() == SQLITE_OK

    /// Loads SpatiaLite and registers the R*Tree search function on one connection.
    static func prepareConnection(_ db: Database) throws {
        var message = [CChar](repeating: 0, count: 512)
        let loaded = bm_load_extension(db.sqliteConnection, "mod_spatialite", &message, message.count)
        guard loaded == SQLITE_OK else {
            throw StorageError.spatialiteUnavailable(
                String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard bm_register_nearest(db.sqliteConnection) == SQLITE_OK else {
            throw StorageError.spatialiteUnavailable("cannot register burgermap_nearest")
        }
        // Temporary b-trees (sorts) go to disk, so memory stays flat. Reads go through a memory
        // map: a nearby search touches a few dozen pages, and read() calls per page cost more
        // than the search itself.
        try db.execute(sql: "PRAGMA temp_store = FILE; PRAGMA cache_size = -32000; PRAGMA mmap_size = \(1 << 34)")
    }

    /// A comma-separated column list with every name qualified by a table alias, for joins:
    /// `qualified("id, name", by: "p")` is `p.id, p.name`.
    static func qualified(_ columns: String, by alias: String) -> String {
        columns.split(separator: ",").map { "\(alias)." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .joined(separator: ", ")
    }

    /// Answers whether the database answers a trivial query (for `GET /health`).
    public func isReachable() async -> Bool {
        (try? await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }
}
