import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("OGC API – Features: the reviews collection")
struct OGCReviewsTests {
    @Test(
        "public reviews only, as points at their places, with an excerpt, the author and the photos",
        arguments: StoreEngine.available)
    func reviews(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let far = try #require(
            try await environment.insert([PlaceDraft(name: "Far Away", lat: -33.9, lng: 151.2)]).first)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bobby")
            let near = try await client.addPlace("Patty Lab", token: alice.token)
            // 199 letters, then a character of two scalars that ends at the 200th character.
            let long = String(repeating: "a", count: 199) + "👍🏽" + " and more after the excerpt"
            let first = try json(try await client.postReview(place: near, rating: "5", text: long, token: alice.token))
            let withPhoto = try json(
                try await client.postReview(
                    place: near, rating: "3", text: "Fine.", photos: [TestImages.jpeg()], token: bob.token))
            let hidden = try await client.reviewID(place: far.id, text: "Hidden by moderation.", token: bob.token)
            let farReview = try json(
                try await client.postReview(place: far.id, rating: "3", text: "Far.", token: alice.token))
            try await environment.execute("UPDATE reviews SET hidden_at = 1 WHERE id = \(hidden)")
            func id(_ body: [String: Any]) -> Int64 { (body["id"] as? NSNumber)?.int64Value ?? 0 }
            let visible = [id(first), id(withPhoto), id(farReview)]

            let walk = try await client.ogcWalk("/ogc/collections/reviews/items?limit=2")
            #expect(walk.ids == visible)
            #expect(walk.pages.first?.numberMatched == 3)
            let features = walk.pages.flatMap(\.features)
            let byID = Dictionary(uniqueKeysWithValues: features.map { (($0["id"] as! NSNumber).int64Value, $0) })

            let longFeature = try #require(byID[id(first)])
            #expect((longFeature["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [127.0, 37.5])
            let properties = try #require(longFeature["properties"] as? [String: Any])
            #expect((properties["place_id"] as? NSNumber)?.int64Value == near)
            #expect(properties["place_name"] as? String == "Patty Lab")
            #expect(properties["rating"] as? Int == 5)
            #expect(properties["title"] is NSNull)
            #expect(properties["excerpt"] as? String == String(repeating: "a", count: 199) + "👍🏽")
            #expect(properties["author_nickname"] as? String == "alice")
            #expect(properties["photo_urls"] as? [String] == [])
            #expect(properties["created_at"] as? String == first["created_at"] as? String)

            let photoFeature = try #require(byID[id(withPhoto)]?["properties"] as? [String: Any])
            let photoURLs = (withPhoto["photos"] as? [[String: Any]])?.compactMap { $0["url"] as? String }
            // Absolute, as every link of the answer: the collection's origin and the review's URL.
            let absolute = try #require(photoFeature["photo_urls"] as? [String])
            #expect(absolute.count == photoURLs?.count)
            for (url, relative) in zip(absolute, photoURLs ?? []) {
                #expect(url.hasPrefix("http://") && url.hasSuffix(relative) && url != relative, "\(url)")
            }
            #expect(photoURLs?.count == 1)
            #expect(photoFeature["author_nickname"] as? String == "bobby")

            // Filters and a box on the place's position.
            let threes = try await client.ogcWalk("/ogc/collections/reviews/items?rating=3")
            #expect(threes.ids == [id(withPhoto), id(farReview)])
            let atFar = try await client.ogcWalk("/ogc/collections/reviews/items?place_id=\(far.id)")
            #expect(atFar.ids == [id(farReview)])
            let boxed = try await client.ogcWalk("/ogc/collections/reviews/items?bbox=150,-35,152,-30")
            #expect(boxed.ids == [id(farReview)])
            #expect(boxed.pages.first?.numberMatched == 1)

            // One review: public is there, hidden is not.
            let one = try await client.execute(uri: "/ogc/collections/reviews/items/\(id(first))", method: .get)
            #expect(one.status == .ok)
            #expect((try json(one)["properties"] as? [String: Any])?["rating"] as? Int == 5)
            let gone = try await client.execute(uri: "/ogc/collections/reviews/items/\(hidden)", method: .get)
            #expect(gone.status == .notFound)
            #expect(try ogcProblem(gone).code == "not_found")
        }
    }
}
