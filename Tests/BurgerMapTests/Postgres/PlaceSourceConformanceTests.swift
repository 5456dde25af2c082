import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// `burgermap sources` and `remove-source` read and write through `PlaceStore` on either engine.
@Suite("Place stores answer alike: import sources")
struct PlaceSourceConformanceTests {
    @Test(
        "sources are listed by name with their reviewed places; removal keeps reviewed places",
        arguments: StoreEngine.available)
    func listAndRemove(engine: StoreEngine) async throws {
        try await withStore(engine) { harness in
            let places = try await harness.insert([
                PlaceDraft(name: "Bun A", lat: 1, lng: 1, source: "seoul", externalId: "1"),
                PlaceDraft(name: "Bun B", lat: 1, lng: 2, source: "seoul", externalId: "2"),
                PlaceDraft(name: "Bun C", lat: 1, lng: 3, source: "seoul", externalId: "3"),
                PlaceDraft(name: "Zed", lat: 2, lng: 1, source: "Busan"),
                PlaceDraft(name: "Own", lat: 3, lng: 1),
            ])
            try await harness.setReviews(placeID: places[1].id, count: 2, ratingSum: 9)
            #expect(
                try await harness.store.placeSources() == [
                    PlaceSource(name: "Busan", places: 1, reviewedPlaces: 0),
                    PlaceSource(name: "seoul", places: 3, reviewedPlaces: 1),
                ])
            let removed = try await harness.store.removePlaceSource("seoul")
            #expect(removed.deleted == 2 && removed.kept == 1)
            #expect(try await harness.store.place(id: places[0].id) == nil)
            #expect(try await harness.store.place(id: places[1].id)?.name == "Bun B")
            #expect(try await harness.store.place(id: places[4].id)?.name == "Own")
            let none = try await harness.store.removePlaceSource("nowhere")
            #expect(none.deleted == 0 && none.kept == 0)
            #expect(
                try await harness.store.placeSources() == [
                    PlaceSource(name: "Busan", places: 1, reviewedPlaces: 0),
                    PlaceSource(name: "seoul", places: 1, reviewedPlaces: 1),
                ])
        }
    }
}
