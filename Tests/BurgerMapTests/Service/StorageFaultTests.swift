import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import HummingbirdTesting
import Synchronization
import Testing

@testable import BurgerMap
@testable import BurgerMapSQLite

@Suite("Faults of the machine: a full disk or a read-only file is 503 and /health says so")
struct StorageFaultTests {
    @Test("a recorded fault stands until a probe write, tried at most once a second, succeeds")
    func faultClearsAfterProbe() async throws {
        let start = Timestamp(milliseconds: 1_000_000)
        let clock = Mutex(start)
        let probes = Mutex(0)
        let probeAnswer = Mutex<StorageFault?>(StorageFault(.full, .database))
        let faults = StorageFaults(
            probe: {
                probes.withLock { $0 += 1 }
                return probeAnswer.withLock { $0 }
            }, now: { clock.withLock { $0 } })
        #expect(await faults.current() == nil)
        faults.record(StorageFault(.full, .photos))
        #expect(await faults.current() == StorageFault(.full, .photos))
        #expect(probes.withLock { $0 } == 0)
        clock.withLock { $0 = Timestamp(milliseconds: start.milliseconds + 1000) }
        #expect(await faults.current() == StorageFault(.full, .database))
        #expect(await faults.current() == StorageFault(.full, .database))
        #expect(probes.withLock { $0 } == 1)
        probeAnswer.withLock { $0 = nil }
        clock.withLock { $0 = Timestamp(milliseconds: start.milliseconds + 2000) }
        #expect(await faults.current() == nil)
        #expect(await faults.current() == nil)
        #expect(probes.withLock { $0 } == 2)
    }

    @Test("SQLite: a full database (its page limit) is 503 storage_full, and /health says so until it clears")
    func sqliteFull() async throws {
        let environment = try TestEnvironment()
        // The service's clock stands still unless moved: however slow the writes that fill the
        // database, /health still holds the fault it recorded.
        let clock = TestClock()
        environment.clock = clock
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            // Pin the writer at its current size: the next page the database needs is refused
            // with SQLITE_FULL, as on a full disk.
            let pages = try await environment.database.pool.write { db in
                try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            }
            try await environment.database.pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA max_page_count = \(pages)")
            }
            var full: TestResponse? = nil
            for index in 0..<2000 where full == nil {
                let response = try await client.send(
                    .post, "/v1/places",
                    json: ["name": String(repeating: "Burger \(index) ", count: 12), "lat": 37.5, "lng": 127.0],
                    token: alice.token, language: "ja")
                if response.status != .created { full = response }
            }
            let refused = try #require(full)
            #expect(refused.status == .serviceUnavailable)
            #expect(try problemCode(refused) == "storage_full")
            #expect(refused.headers[.retryAfter] == "10")
            #expect((try json(refused)["detail"] as? String)?.contains("ディスク") == true)
            let health = try await client.send(.get, "/health")
            #expect(health.status == .serviceUnavailable)
            #expect(try problemCode(health) == "storage_full")
            try await environment.database.pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA max_page_count = 1073741823")
            }
            // The probe writes one page in place (no new page): the service tries again a second
            // after the fault at most; a write that succeeds shows writes work.
            clock.advance(milliseconds: 999)
            let stillFull = try await client.send(.get, "/health")
            #expect(stillFull.status == .serviceUnavailable)
            clock.advance(milliseconds: 1)
            let cleared = try await client.send(.get, "/health")
            #expect(cleared.status == .ok)
            let created = try await client.send(
                .post, "/v1/places", json: ["name": "After", "lat": 37.5, "lng": 127.0], token: alice.token)
            #expect(created.status == .created)
        }
    }

    @Test("SQLite: a database file that opens read-only is refused at start with a clear message")
    func sqliteReadOnlyAtStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("burgermap-ro-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AppDatabase(dataDirectory: folder)
        let path = folder.appendingPathComponent("burgermap.sqlite").path
        // Opened read-only by SQLite's URI parameter: what a read-only file or mount gives.
        #expect {
            _ = try AppDatabase(path: "file:\(path)?mode=ro")
        } throws: { error in
            "\(error)".contains("read-only")
        }
    }
}
