import BurgerMap
import BurgerMapCore
import Foundation
import HummingbirdTesting
import Testing

/// A dense area: 17,000 places outside a box, then 5,000 inside it (imported in that order, so
/// the viewport walk, in id order among unreviewed places, meets every outside place first),
/// three of category `rare` far apart, and a few inside places with reviews.
private func denseArea(_ environment: TestEnvironment) async throws {
    var csv = "name,lat,lng,category\n"
    for index in 0..<17_000 {
        let category = [4_000, 9_000, 16_000].contains(index) ? "rare" : "burger"
        csv += "Out \(index),\(37.0 + Double(index % 130) * 0.001),\(127.0 + Double(index / 130) * 0.001),\(category)\n"
    }
    for index in 0..<5_000 {
        csv += "In \(index),\(37.5 + Double(index % 70) * 0.0005),\(127.5 + Double(index / 70) * 0.0005),burger\n"
    }
    _ = try await environment.load(try environment.file("dense.csv", csv), source: "dense")
    // Reviews, as counts: a viewport puts the most-reviewed first.
    for (name, count) in [("In 10", 7), ("In 4000", 3), ("In 20", 3)] {
        try await environment.execute(
            "UPDATE places SET review_count = \(count), rating_sum = \(count * 4) WHERE name = '\(name)'")
    }
}

@Suite("Reads bounded by their page: dense viewports and filtered nearby searches")
struct ReadBoundsTests {
    @Test(
        "a dense viewport walks a bounded number of places; its pages resume and add up to the box",
        arguments: StoreEngine.available)
    func denseViewport(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await denseArea(environment)
        try await environment.withClient { client in
            var expected: [(reviews: Int, id: Int64)] = []
            let places = try await environment.allPlaces()
            for place in places where place.lat >= 37.5 && place.lng >= 127.5 {
                expected.append((place.reviewCount, place.id))
            }
            expected.sort { $0.reviews != $1.reviews ? $0.reviews > $1.reviews : $0.id < $1.id }
            #expect(expected.count == 5_000)
            let box = "127.5,37.5,127.6,37.6"
            var seen: [Int64] = []
            var cursor: String? = nil
            var partialPages = 0
            for _ in 0..<40 {
                let uri = "/v1/places?bbox=\(box)&limit=500" + (cursor.map { "&cursor=\($0)" } ?? "")
                let response = try await client.send(.get, uri)
                #expect(response.status == .ok)
                let body = try json(response)
                let items = try #require(body["items"] as? [[String: Any]])
                seen += items.compactMap { ($0["id"] as? NSNumber)?.int64Value }
                cursor = body["next_cursor"] as? String
                #expect((body["truncated"] as? Bool) == (cursor != nil))
                if cursor == nil { break }
                if items.count < 500 { partialPages += 1 }
            }
            #expect(seen == expected.map(\.id))
            // The first walk met 16,384 places outside the box before any inside.
            #expect(partialPages >= 1)
            // The most-reviewed come first, on the first full page.
            let top = try json(try await client.send(.get, "/v1/places?bbox=127.4,37.4,127.7,37.7&limit=2"))
            #expect((top["items"] as? [[String: Any]])?.map { $0["name"] as? String } == ["In 10", "In 20"])
            #expect(top["truncated"] as? Bool == true)
            // A box of a few places is sorted whole, and a cursor from another box is refused.
            let small = try await client.send(.get, "/v1/places?bbox=127.5,37.5,127.5006,37.5011&limit=1")
            let smallBody = try json(small)
            let smallCursor = try #require(smallBody["next_cursor"] as? String)
            let other = try await client.send(.get, "/v1/places?bbox=\(box)&cursor=\(smallCursor)")
            #expect(other.status == .badRequest)
            #expect(try problemCode(other) == "invalid_cursor")
        }
    }

    @Test(
        "a filtered nearby search examines a bounded number of places; its pages resume and equal brute force",
        arguments: StoreEngine.available)
    func filteredNearby(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await denseArea(environment)
        try await environment.withClient { client in
            let places = try await environment.allPlaces()
            let rare = places.filter { $0.category == "rare" }.map { (id: $0.id, lat: $0.lat, lng: $0.lng) }
            #expect(rare.count == 3)
            let expected = bruteForceNearest(rare, lat: 37.05, lng: 127.05, radius: 50_000).map(\.id)
            var seen: [Int64] = []
            var cursor: String? = nil
            var pages = 0
            for _ in 0..<100 {
                let uri =
                    "/v1/places/nearby?lat=37.05&lng=127.05&radius_m=50000&limit=20&category=rare"
                    + (cursor.map { "&cursor=\($0)" } ?? "")
                let response = try await client.send(.get, uri)
                #expect(response.status == .ok)
                let body = try json(response)
                seen += (body["items"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.int64Value }
                pages += 1
                cursor = body["next_cursor"] as? String
                if cursor == nil { break }
            }
            #expect(seen == expected)
            // 22,000 places within the radius, 2,048 examined a page.
            #expect(pages >= 5)
            // Unfiltered, the page is whole at once.
            let plain = try json(
                try await client.send(.get, "/v1/places/nearby?lat=37.05&lng=127.05&radius_m=50000&limit=20"))
            #expect((plain["items"] as? [Any])?.count == 20)
        }
    }

    @Test("the read gate runs its slots, queues the next few and turns away the rest, in order")
    func readGate() async throws {
        let gate = ReadGate(slots: 1, maxWaiting: 1)
        #expect(await gate.enter())
        let (entered, signal) = AsyncStream.makeStream(of: Int.self)
        let waiter = Task {
            let admitted = await gate.enter()
            signal.yield(admitted ? 1 : 0)
            if admitted { gate.leave() }
        }
        while gate.waiting == 0 { await Task.yield() }
        // The queue holds one: a third read is turned away at once.
        #expect(await gate.enter() == false)
        var iterator = entered.makeAsyncIterator()
        gate.leave()
        #expect(await iterator.next() == 1)
        await waiter.value
        #expect(await gate.enter())
        gate.leave()
    }
}
