import CGeoIndex
import Foundation
import GRDB
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres
@testable import BurgerMapSQLite

extension TestEnvironment {
    /// Imports `file` into this environment's engine, as `burgermap import` does.
    func load(_ file: URL, source: String? = nil, category: String? = nil) async throws -> ImportSummary {
        if let postgres {
            return try await PlaceImport(sink: postgres.placeImport).load(
                file: file, source: source, category: category)
        }
        return try await PlaceImport(database: database).load(file: file, source: source, category: category)
    }

    /// The engine's side of an import.
    var importSink: any PlaceImportSink {
        if let postgres { return postgres.placeImport }
        return database
    }

    /// Every place, by id, as `GET /places/{id}` shows it (the creation time left out: it is
    /// the time of the import).
    func allPlaces() async throws -> [Place] {
        var ids: [Int64] = []
        if let postgres {
            for try await id in try await postgres.pool.query("SELECT id FROM places ORDER BY id").decode(Int64.self) {
                ids.append(id)
            }
        } else {
            ids = try await database.pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM places ORDER BY id")
            }
        }
        var places: [Place] = []
        for id in ids {
            var place = try #require(try await stores.places.place(id: id))
            place.createdAt = Timestamp(milliseconds: 0)
            places.append(place)
        }
        return places
    }

    /// The names of the places within `radius` metres of a point, nearest first.
    func namesNear(_ lat: Double, _ lng: Double, radius: Double) async throws -> [String] {
        try await stores.places.nearbyPlaces(NearbyQuery(lat: lat, lng: lng, radiusM: radius, limit: 100)).items
            .map(\.place.name)
    }
}

extension Place {
    var withoutID: Place {
        var place = self
        place.id = 0
        return place
    }
}

/// What an import answered, in a form two engines' answers compare by (the time aside).
struct SummaryView: Equatable, CustomStringConvertible {
    var read, inserted, updated, unchanged, skipped: Int
    var skips: [String]

    init(_ summary: ImportSummary) {
        (read, inserted, updated, unchanged, skipped) = (
            summary.read, summary.inserted, summary.updated, summary.unchanged, summary.skipped
        )
        skips = summary.skips.map(\.description)
    }

    init(read: Int, inserted: Int, updated: Int = 0, unchanged: Int = 0, skipped: Int = 0, skips: [String] = []) {
        (self.read, self.inserted, self.updated, self.unchanged, self.skipped, self.skips) = (
            read, inserted, updated, unchanged, skipped, skips
        )
    }

    var description: String {
        "read \(read) inserted \(inserted) updated \(updated) unchanged \(unchanged) skipped \(skipped) \(skips)"
    }
}

/// The latitude `metres` north of `lat` on the contract's sphere (a meridian is a great circle).
func north(of lat: Double, metres: Double) -> Double {
    lat + metres / 6_371_008.8 * 180 / .pi
}
