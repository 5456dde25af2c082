import BurgerMapCore
import Foundation
import GRDB
import GRDBSQLite

extension AppDatabase {
    /// `SQLITE_FULL` (the disk, or `max_page_count`) and `SQLITE_READONLY` (a read-only file or
    /// file system) are faults of the machine, not of the service.
    ///
    /// A write to a file system the kernel made read-only under a running service (an ext4
    /// error, `errors=remount-ro`) is a plain `SQLITE_IOERR` ("disk I/O error"): then the file
    /// system of the database itself says which, if either, it is (`statvfs`).
    public func storageFault(_ error: any Error) -> StorageFault? {
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_FULL: return StorageFault(.full, .database)
        case .SQLITE_READONLY: return StorageFault(.readOnly, .database)
        case .SQLITE_IOERR, .SQLITE_CANTOPEN: return Self.fileSystemFault(path)
        default: return nil
        }
    }

    /// A read-only or full file system under `path`, as the kernel answers a small write next to
    /// it. (`statvfs` does not say read-only when ext4 turns a file system read-only after an
    /// error; a write answers `EROFS`.)
    static func fileSystemFault(_ path: String) -> StorageFault? {
        let probe = (path as NSString).deletingLastPathComponent + "/.burgermap-write-probe-\(getpid())"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return StorageFault.fromErrno(errno, .database) }
        defer {
            close(descriptor)
            unlink(probe)
        }
        var byte: UInt8 = 0
        guard write(descriptor, &byte, 1) == 1, fsync(descriptor) == 0 else {
            return StorageFault.fromErrno(errno, .database)
        }
        return nil
    }

    /// Rewrites the database header's user version with its own value: a write of one page, in
    /// a transaction of its own, that fails exactly when other writes would.
    public func probeWrite() async -> StorageFault? {
        do {
            try await pool.write { db in
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                try db.execute(sql: "PRAGMA user_version = \(version)")
            }
            return nil
        } catch {
            return storageFault(error) ?? StorageFault(.readOnly, .database)
        }
    }

    /// Refuses a database file that SQLite opened read-only (a read-only file or file system:
    /// SQLite then opens it for reading without a word, and every write would fail).
    static func checkWritable(_ pool: DatabasePool, path: String) throws {
        let readOnly = pool.writeWithoutTransaction { db in
            sqlite3_db_readonly(db.sqliteConnection, "main") == 1
        }
        if readOnly { throw DatabaseFileError.readOnly(path) }
    }
}

/// Why the database file cannot be used.
public enum DatabaseFileError: Error, CustomStringConvertible {
    case readOnly(String)

    public var description: String {
        switch self {
        case .readOnly(let path):
            "the database file \(path) (or its folder) is read-only: the service needs to write to it. Make the "
                + "file, its folder and its -wal and -shm files writable by this user, or mount the file system "
                + "read-write, and start again."
        }
    }
}
