import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import Testing

@testable import BurgerMapSQLite

@Suite("Database backup")
struct BackupTests {
    @Test("a backup taken while a read is open holds every committed place and opens as a service database")
    func backupWhileServing() async throws {
        let environment = try TestEnvironment()
        try await environment.insert(
            (0..<50).map { PlaceDraft(name: "Burger \($0)", lat: 37.5, lng: 127 + Double($0) * 0.001) })
        let destination = environment.folder.appendingPathComponent("copy/burgermap.sqlite")
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        // A long read on another connection, as a running service has, does not stop the copy.
        let snapshot = try environment.database.pool.makeSnapshot()
        try await environment.database.backup(to: destination)
        _ = snapshot
        // One finished file, no partial copy beside it.
        let written = try FileManager.default.contentsOfDirectory(atPath: destination.deletingLastPathComponent().path)
        #expect(written == ["burgermap.sqlite"])

        let copy = try AppDatabase(path: destination.path)
        let page = try await copy.nearbyPlaces(NearbyQuery(lat: 37.5, lng: 127, radiusM: 50_000, limit: 100))
        #expect(page.items.map(\.place.name) == (0..<50).map { "Burger \($0)" })
    }

    @Test("a backup never overwrites a file")
    func refusesToOverwrite() async throws {
        let environment = try TestEnvironment()
        let destination = environment.folder.appendingPathComponent("existing.sqlite")
        try Data("keep me".utf8).write(to: destination)
        await #expect(throws: BackupError.self) { try await environment.database.backup(to: destination) }
        #expect(try String(contentsOf: destination, encoding: .utf8) == "keep me")
    }
}
