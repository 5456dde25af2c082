import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import Testing

@testable import BurgerMapSQLite

@Suite("Reads on the calling thread")
struct CallingThreadReadersTests {
    @Test("a read sees the last commit; with every connection busy it answers nil, and the store's read takes the pool")
    func readsAndFallBack() async throws {
        let environment = try TestEnvironment()
        let database = environment.database
        let place = try #require(
            try await environment.insert([PlaceDraft(name: "Thread Burgers", lat: 37.5, lng: 127.0)]).first)
        let readers = CallingThreadReaders(path: database.path, configuration: Configuration(), limit: 1)
        let name = try readers.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM places WHERE id = ?", arguments: [place.id])
        }
        #expect(name == "Thread Burgers")
        // The one connection is busy inside this read: a second read answers nil at once.
        let nested = try readers.read { _ in try readers.read { _ in 1 } }
        #expect(nested == .some(nil))
        // Written through the pool, read back on the calling thread.
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE places SET name = 'Renamed' WHERE id = ?", arguments: [place.id])
        }
        let renamed = try readers.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM places WHERE id = ?", arguments: [place.id])
        }
        #expect(renamed == "Renamed")
        #expect(try await database.place(id: place.id)?.name == "Renamed")
    }
}
