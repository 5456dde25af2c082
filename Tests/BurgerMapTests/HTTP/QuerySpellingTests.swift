import BurgerMap
import BurgerMapCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap

/// Queries as real clients write them: forms, `URLSearchParams`, Python's `urlencode` and
/// `curl --data-urlencode` write a space as `+`; others as `%20`. Both mean the same.
@Suite("Query strings as forms write them")
struct QuerySpellingTests {
    @Test("+ is a space and %2B a plus, in names and values; broken escapes are kept as written")
    func decoding() {
        #expect(FormQuery.decode("Tasty+Burger") == "Tasty Burger")
        #expect(FormQuery.decode("C%2B%2B+bar") == "C++ bar")
        #expect(FormQuery.decode("%EB%B2%84%EA%B1%B0") == "버거")
        #expect(FormQuery.decode("plain") == "plain")
        #expect(FormQuery.decode("100%") == "100%")
        #expect(FormQuery.decode("%zz+x") == "%zz+x")
        #expect(FormQuery.decode("%FF") == "%FF")
        let parameters = FormQuery.parameters("q=Burger+Lab&la%6Eg=ko&flag&q=second")
        #expect(parameters["q"] == "Burger Lab")
        #expect(parameters["lang"] == "ko")
        #expect(parameters["flag"] == "")
    }

    @Test(
        "a multi-word search finds the same places whether its spaces are + or %20",
        arguments: StoreEngine.available)
    func search(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let places = try await environment.insert(
            [
                PlaceDraft(name: "Tasty Burger", lat: 37.5, lng: 127.0),
                PlaceDraft(name: "C++ Grill", lat: 37.5, lng: 127.01),
            ]
                + (1...3).map { PlaceDraft(name: "Burger Lab #\($0)", lat: 37.51, lng: 127.0 + Double($0) / 1000) })
        let ids = places.map(\.id)
        try await environment.withClient { client in
            func found(_ query: String) async throws -> [Int64] {
                let response = try await client.execute(uri: "/v1/places/search?\(query)", method: .get)
                try #require(response.status == .ok, "\(query): \(String(buffer: response.body))")
                let items = try #require(try json(response)["items"] as? [[String: Any]])
                return items.compactMap { ($0["id"] as? NSNumber)?.int64Value }
            }
            #expect(try await found("q=Tasty+Burger") == [ids[0]])
            #expect(try await found("q=Tasty%20Burger") == [ids[0]])
            let lab = try await found("q=Burger+Lab&limit=10")
            #expect(Set(lab) == Set(ids[2...]))
            #expect(try await found("q=Burger%20Lab&limit=10") == lab)
            #expect(try await found("q=C%2B%2B") == [ids[1]])
            // A name written with +, the spaces of a form: one search, not two words lost.
            #expect(try await found("q=Tasty+Burger&lat=37.5&lng=127") == [ids[0]])
        }
    }
}
