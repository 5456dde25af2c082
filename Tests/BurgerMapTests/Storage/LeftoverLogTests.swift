import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import Testing

@testable import BurgerMapSQLite

@Suite("A write-ahead log left by a process that did not close the database")
struct LeftoverLogTests {
    @Test("opening the database copies the log into its file: the file alone holds the last commit")
    func openingCopiesTheLog() async throws {
        let environment = try TestEnvironment()
        let place = try #require(
            try await environment.insert([PlaceDraft(name: "Logged Burgers", lat: 37.5, lng: 127.0)]).first)
        let folder = environment.folder.appendingPathComponent("left", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let left = folder.appendingPathComponent("burgermap.sqlite").path

        // A commit that stays in the log (this connection never checkpoints), and the files as a
        // killed process leaves them: copied while the database is still open.
        let writer = try DatabaseQueue(path: environment.database.path)
        try await writer.writeWithoutTransaction { db in
            // The place itself in the file; only the rename in the log.
            try db.checkpoint(.truncate)
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "UPDATE places SET name = 'Renamed' WHERE id = ?", arguments: [place.id])
        }
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: environment.database.path + suffix, toPath: left + suffix)
        }
        #expect(try Self.nameInFileAlone(left, folder: folder, id: place.id, copy: "before") == "Logged Burgers")

        // Opened as the service opens it, and still open: its file alone now holds the commit.
        let opened = try AppDatabase(path: left)
        #expect(try Self.nameInFileAlone(left, folder: folder, id: place.id, copy: "after") == "Renamed")
        #expect(try await opened.place(id: place.id)?.name == "Renamed")
        try await writer.close()
    }

    /// The place's name as the database file reads without its log (a copy of the file alone).
    private static func nameInFileAlone(_ path: String, folder: URL, id: Int64, copy: String) throws -> String? {
        let alone = folder.appendingPathComponent("\(copy).sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: alone)
        let reader = try DatabaseQueue(path: alone)
        defer { try? reader.close() }
        return try reader.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM places WHERE id = ?", arguments: [id])
        }
    }
}
