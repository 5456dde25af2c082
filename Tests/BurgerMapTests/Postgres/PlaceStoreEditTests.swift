import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres

/// Creating, changing and deleting places: the same outcomes on every engine.
@Suite("Place stores answer alike: edits")
struct PlaceStoreEditTests {
    static let full = PlaceDraft(
        name: "Zürich Burger 🍔", lat: 47.3769, lng: 8.5417, address: "Bahnhofstrasse 1", city: "Zürich",
        province: "ZH", postalCode: "8001", country: "CH", phone: "+41 44 000 00 00", category: "burger",
        website: "https://example.ch", source: "osm", externalId: "node/1")

    @Test(
        "create answers the stored place; the same source and external id answers the first one",
        arguments: StoreEngine.available)
    func createOnce(engine: StoreEngine) async throws {
        try await withStore(engine) { harness in
            let user = try await harness.makeUser("creator")
            let (place, created) = try await harness.store.createPlace(Self.full, by: user)
            #expect(created)
            #expect(place.address == "Bahnhofstrasse 1, Zürich, ZH 8001, CH")
            #expect(place.name == Self.full.name && place.website == Self.full.website && place.reviewCount == 0)
            #expect(place.ratingAvg == nil && place.coverPhotoUrl == nil)
            var again = Self.full
            again.name = "Another name"
            let (second, secondCreated) = try await harness.store.createPlace(again, by: user)
            #expect(!secondCreated)
            #expect(second == place)
            #expect(try await harness.store.place(id: place.id) == place)
            // Without a source, the same fields make a new place.
            var local = Self.full
            local.source = nil
            let third = try await harness.store.createPlace(local, by: user)
            #expect(third.created && third.place.id != place.id)
            #expect(try await harness.store.place(id: 999_999) == nil)
        }
    }

    @Test(
        "update: the creator's edit moves and renames; anyone else is forbidden; a missing place is not found",
        arguments: StoreEngine.available)
    func update(engine: StoreEngine) async throws {
        try await withStore(engine) { harness in
            let owner = try await harness.makeUser("owner")
            let other = try await harness.makeUser("other")
            let place = try await harness.store.createPlace(Self.full, by: owner).place
            let imported = try await harness.insert([PlaceDraft(name: "Imported", lat: 1, lng: 1)])[0]
            let edit = PlaceEdit(name: "Moved", lat: -33.86, lng: 151.21, phone: .clear, website: .set("https://x.au"))
            let at = Timestamp(milliseconds: 1_800_000_000_000)
            guard case .forbidden = try await harness.store.updatePlace(id: place.id, by: other, edit, at: at) else {
                Issue.record("another user's edit must be forbidden")
                return
            }
            guard case .forbidden = try await harness.store.updatePlace(id: imported.id, by: owner, edit, at: at) else {
                Issue.record("an imported place has no creator who may edit it")
                return
            }
            guard case .notFound = try await harness.store.updatePlace(id: 999_999, by: owner, edit, at: at) else {
                Issue.record("a missing place must be notFound")
                return
            }
            guard case .done(let changed) = try await harness.store.updatePlace(id: place.id, by: owner, edit, at: at)
            else {
                Issue.record("the creator's edit must be done")
                return
            }
            #expect(changed.name == "Moved" && changed.lat == -33.86 && changed.lng == 151.21)
            #expect(changed.phone == nil && changed.website == "https://x.au" && changed.category == "burger")
            #expect(changed.source == "osm" && changed.externalId == "node/1" && changed.createdAt == place.createdAt)
            #expect(try await harness.store.place(id: place.id) == changed)
            // The index follows the move.
            let near = try await harness.store.nearbyPlaces(
                NearbyQuery(lat: -33.86, lng: 151.21, radiusM: 10, limit: 5))
            #expect(near.items.map(\.place.id) == [place.id])
            let old = try await harness.store.nearbyPlaces(
                NearbyQuery(lat: 47.3769, lng: 8.5417, radiusM: 1000, limit: 5))
            #expect(old.items.isEmpty)
        }
    }

    @Test(
        "delete: the creator deletes a place without reviews; reviews keep it; others are forbidden",
        arguments: StoreEngine.available)
    func delete(engine: StoreEngine) async throws {
        try await withStore(engine) { harness in
            let owner = try await harness.makeUser("owner")
            let other = try await harness.makeUser("other")
            let plain = try await harness.store.createPlace(PlaceDraft(name: "Plain", lat: 1, lng: 2), by: owner).place
            let reviewed = try await harness.store.createPlace(PlaceDraft(name: "Loved", lat: 1, lng: 2), by: owner)
                .place
            try await harness.setReviews(placeID: reviewed.id, count: 3, ratingSum: 12)
            #expect(try await harness.store.place(id: reviewed.id)?.ratingAvg == 4)
            #expect(try await harness.store.deletePlace(id: plain.id, by: other) == .forbidden)
            #expect(try await harness.store.deletePlace(id: reviewed.id, by: owner) == .hasReviews(3))
            #expect(try await harness.store.deletePlace(id: plain.id, by: owner) == .deleted)
            #expect(try await harness.store.place(id: plain.id) == nil)
            #expect(try await harness.store.deletePlace(id: plain.id, by: owner) == .notFound)
            #expect(try await harness.store.place(id: reviewed.id) != nil)
        }
    }
}
