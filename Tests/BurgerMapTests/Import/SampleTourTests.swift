import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapSQLite

/// The README's tour on the sample places as `scripts/serve` imports them: each step shows what
/// it says (names in the reader's language, the places open now, a photo the project ships).
@Suite("The README's tour on the sample places")
struct SampleTourTests {
    /// The repository's `data/` folder.
    static let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("data")

    @Test(
        "Korean names with Content-Language ko, places open at noon in Seoul, the shipped photo uploads",
        arguments: StoreEngine.available)
    func tour(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let options = PlaceImportOptions(source: "burgermap-sample", category: "burger", timeZone: "Asia/Seoul")
        let file = Self.data.appendingPathComponent("sample-places.csv")
        let summary =
            if let postgres = environment.postgres {
                try await PlaceImport(sink: postgres.placeImport).load(file: file, options: options)
            } else {
                try await PlaceImport(database: environment.database).load(file: file, options: options)
            }
        #expect(summary.inserted == 2_000 && summary.skipped == 0)
        // Monday 2026-12-07 12:00 in Seoul (03:00 UTC): lunch time.
        environment.clock = TestClock(startingAt: Timestamp(milliseconds: 1_796_612_400_000))
        try await environment.withClient { client in
            let nearby = "/v1/places/nearby?lat=37.5665&lng=126.978&limit=5"
            let korean = try await client.send(.get, nearby + "&open_now=true", language: "ko-KR")
            #expect(korean.status == .ok)
            #expect(korean.headers[.contentLanguage] == "ko")
            let items = try #require(try json(korean)["items"] as? [[String: Any]])
            #expect(items.count == 5)
            for item in items {
                #expect((item["name"] as? String)?.hasSuffix("호점") == true, "\(item["name"] ?? "")")
                #expect(item["open_now"] as? Bool == true)
            }
            let japanese = try await client.send(.get, nearby + "&lang=ja")
            #expect(japanese.headers[.contentLanguage] == "ja")
            let first = try #require((try json(japanese)["items"] as? [[String: Any]])?.first)
            #expect((first["name"] as? String)?.hasSuffix("号店") == true)
            // The search step, spelt as a form writes it.
            let search = try await client.send(.get, "/v1/places/search?q=double+stack&lat=37.5665&lng=126.978&limit=5")
            let found = try #require(try json(search)["items"] as? [[String: Any]])
            #expect(found.count == 5 && found.allSatisfy { ($0["name"] as? String)?.hasPrefix("Double Stack") == true })
            // The photo step: the project's own burger.jpg.
            let ana = try await client.member("ana")
            let place = try #require((first["id"] as? NSNumber)?.int64Value)
            let photo = Array(try Data(contentsOf: Self.data.appendingPathComponent("burger.jpg")))
            let review = try await client.postReview(place: place, photos: [photo], token: ana.token)
            #expect(review.status == .created)
            #expect((try json(review)["photos"] as? [[String: Any]])?.first?["width"] as? Int == 640)
        }
    }
}
