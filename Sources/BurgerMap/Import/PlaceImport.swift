import Foundation
import GRDB

/// The dataset formats the importer reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case csv
    case geojson

    /// The format a file name suggests (`.csv`, `.geojson` or `.json`), if any.
    public static func guess(for url: URL) -> ImportFormat? {
        switch url.pathExtension.lowercased() {
        case "csv", "txt": .csv
        case "geojson", "json": .geojson
        default: nil
        }
    }
}

/// An import option that breaks its field's rule (for example a 101-character `--category`).
public struct ImportOptionError: Error, CustomStringConvertible {
    let field: FieldError

    public var description: String {
        "--category: " + field.message.text(in: .english)
    }
}

/// What one import did.
public struct ImportSummary: Sendable, CustomStringConvertible {
    public var read = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0
    /// The first skipped rows, with their position and reason (at most `keptSkips`).
    public var skips: [ImportSkip] = []
    public var seconds = 0.0
    static let keptSkips = 100

    public var description: String {
        let rate = seconds > 0 ? Int(Double(read) / seconds) : read
        return "read \(read), inserted \(inserted), updated \(updated), unchanged \(unchanged), skipped \(skipped) "
            + "in \(String(format: "%.2f", seconds)) s (\(rate) rows/s)"
    }
}

/// How far an import has come, for a progress display.
public struct ImportProgress: Sendable {
    public var bytesRead: Int64
    public var totalBytes: Int64?
    public var rows: Int
    public var seconds: Double
}

/// Imports a place dataset into the database.
///
/// A whole file is one transaction: a reader of the database sees all of an import or none of
/// it, and an import that fails or is killed leaves the database as it was. Places are matched
/// by (`source`, `external_id`) when a row has an id, otherwise by the same name within 25 m;
/// a match is updated, or counted unchanged, never duplicated.
public struct PlaceImport {
    public let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// Imports `file`; `source` defaults to the file's name without its extension, and rows
    /// without a category get `category`.
    public func run(
        file: URL, format: ImportFormat? = nil, source: String? = nil, category: String? = nil,
        progress: ((ImportProgress) -> Void)? = nil
    ) throws -> ImportSummary {
        let category = PlaceRow.cleaned(category)
        if let category, let problem = TextField.placeCategory.problem(category) {
            throw ImportOptionError(field: problem)
        }
        let started = Date()
        let bytes = try ByteSource(url: file)
        let format = format ?? ImportFormat.guess(for: file) ?? .csv
        let source = source ?? file.deletingPathExtension().lastPathComponent
        let reader: any PlaceRowReader =
            switch format {
            case .csv: try CSVPlaceRowReader(source: bytes, path: file.path)
            case .geojson: GeoJSONPlaceRowReader(source: bytes, path: file.path)
            }
        let (locationWord, totalBytes) = (reader.locationWord, reader.size)
        let pipeline = ImportPipeline.start(reading: reader, source: source, category: category)
        defer { pipeline.close() }
        var bytesRead: Int64 = 0
        var summary = try database.pool.writeWithoutTransaction { db in
            var summary = ImportSummary()
            let rollbackJournal = try Self.leaveWALForFirstLoad(db)
            defer { if rollbackJournal { _ = try? String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") } }
            try db.inTransaction {
                var session = try PlaceImportSession(db: db, source: source, locationWord: locationWord)
                var lastReport = Date()
                reading: while true {
                    switch pipeline.take() {
                    case .batch(let items, let read):
                        for (position, item) in items {
                            try session.apply(item, at: position)
                        }
                        bytesRead = read
                        if let progress, Date().timeIntervalSince(lastReport) > 0.2 {
                            lastReport = Date()
                            progress(
                                ImportProgress(
                                    bytesRead: read, totalBytes: totalBytes, rows: session.summary.read,
                                    seconds: lastReport.timeIntervalSince(started)))
                        }
                    case .end:
                        break reading
                    case .failure(let error):
                        throw error
                    }
                }
                try session.finish()
                summary = session.summary
                return .commit
            }
            return summary
        }
        summary.seconds = Date().timeIntervalSince(started)

        progress?(
            ImportProgress(bytesRead: bytesRead, totalBytes: totalBytes, rows: summary.read, seconds: summary.seconds))
        return summary
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
