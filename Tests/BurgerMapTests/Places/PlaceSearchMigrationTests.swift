import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

/// Places stored before place search existed are folded and found once the migrations run.
@Suite("Place search migrations fold the places stored before them")
struct PlaceSearchMigrationTests {
    @Test("SQLite v7-place-search folds and indexes the places already stored")
    func sqlite() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("burgermap-search-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("burgermap.sqlite").path
        do {
            var configuration = Configuration()
            configuration.prepareDatabase { db in try AppDatabase.prepareConnection(db) }
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try AppDatabase.migrator.migrate(queue, upTo: "v6-login-throttle")
            try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO places (name, lat, lng, address, city, created_at, updated_at, geom) VALUES
                            ('Café Ñandú', 1, 1, 'Rue Élysée', 'Paris', 0, 0, MakePoint(1, 1, 4326)),
                            ('수제버거하우스', 2, 2, NULL, NULL, 0, 0, MakePoint(2, 2, 4326))
                        """)
            }
        }
        let database = try AppDatabase(path: path)
        let names = try await database.searchPlaces(SearchQuery(text: "nandu", limit: 10))
        #expect(names.items.map(\.place.name) == ["Café Ñandú"])
        let korean = try await database.searchPlaces(SearchQuery(text: "버거", limit: 10))
        #expect(korean.items.map(\.place.name) == ["수제버거하우스"])
        let address = try await database.searchPlaces(SearchQuery(text: "elysee, paris", limit: 10))
        #expect(address.items.map(\.key.rank) == [3])
    }

    @Test("PostgreSQL v5-place-search's fold fills the columns of places stored without them")
    func postgres() async throws {
        try await withPostgresEngine { engine in
            let places = try await PostgresHarness(engine: engine).insert([
                PlaceDraft(name: "Café Ñandú", lat: 1, lng: 1, address: "Rue Élysée", city: "Paris"),
                PlaceDraft(name: "수제버거하우스", lat: 2, lng: 2),
            ])
            try await engine.pool.query("UPDATE places SET search_name = NULL, search_address = NULL")
            #expect(try await engine.places.searchPlaces(SearchQuery(text: "nandu", limit: 10)).items.isEmpty)
            try await engine.pool.withConnection { connection in
                try await PostgresMigrations.foldExistingPlaces(connection, Logger(label: "burgermap-tests"))
            }
            let names = try await engine.places.searchPlaces(SearchQuery(text: "nandu", limit: 10))
            #expect(names.items.map(\.place.id) == [places[0].id])
            let korean = try await engine.places.searchPlaces(SearchQuery(text: "버거", limit: 10))
            #expect(korean.items.map(\.place.id) == [places[1].id])
            let address = try await engine.places.searchPlaces(SearchQuery(text: "elysee, paris", limit: 10))
            #expect(address.items.map(\.key.rank) == [3])
        }
    }
}
