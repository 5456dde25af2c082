import BurgerMapCore
import Foundation
import GRDB

extension AppDatabase {
    /// Writes a consistent copy of the database to `destination` while the service keeps
    /// serving: `VACUUM INTO` reads one snapshot (WAL readers never block the writer) and writes
    /// a compact file. The copy is written beside the destination and renamed into place only
    /// when complete and checked, so a failed backup never leaves a file that looks whole.
    public func backup(to destination: URL) async throws {
        let fileManager = FileManager.default
        guard !fileManager.fileExists(atPath: destination.path) else {
            throw BackupError.destinationExists(destination.path)
        }
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).partial-\(UUID().uuidString)")
        defer { try? fileManager.removeItem(at: partial) }
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [partial.path])
        }
        // The copy must open and pass SQLite's own check before it takes the name.
        let check = try DatabaseQueue(path: partial.path, configuration: Self.readOnlyConfiguration)
        let verdict = try await check.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
        try check.close()
        guard verdict == "ok" else { throw BackupError.copyDamaged(verdict ?? "no answer") }
        try fileManager.moveItem(at: partial, to: destination)
    }

    private static var readOnlyConfiguration: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }
}

/// Why a backup was not written.
public enum BackupError: Error, CustomStringConvertible {
    /// Backups never overwrite a file.
    case destinationExists(String)
    /// The written copy failed `PRAGMA quick_check`.
    case copyDamaged(String)

    public var description: String {
        switch self {
        case .destinationExists(let path): "\(path) exists; a backup never overwrites a file"
        case .copyDamaged(let verdict): "the copy failed SQLite's check: \(verdict)"
        }
    }
}
