import BurgerMap
import BurgerMapCore

extension PlaceStore {
    /// Every page of a nearby search, following the store's own keyset.
    func allNearbyPages(_ base: NearbyQuery) async throws -> [NearbyPlace] {
        var query = base
        var results: [NearbyPlace] = []
        while true {
            let page = try await nearbyPlaces(query)
            results += page.items
            guard page.hasMore, let last = page.items.last else { break }
            query.after = NearbyKey(distanceM: last.distanceM, id: last.place.id)
        }
        return results
    }
}
