import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The `Link: <…>; rel="next"` header that every list answers, built from the request's own query.
@Suite("Next-page links")
struct NextLinkTests {
    /// The link's target, parsed back into (name, decoded value) pairs.
    func parameters(of link: String) throws -> (path: String, items: [(String, String)]) {
        #expect(link.hasPrefix("<") && link.hasSuffix(">; rel=\"next\""))
        let target = String(link.dropFirst().prefix { $0 != ">" })
        let components = try #require(URLComponents(string: target), "\(target)")
        return (components.path, (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
    }

    @Test("keeps the filters as sent, drops the old cursor, adds the new one last; stays plain ASCII")
    func keepsFiltersAndReplacesTheCursor() throws {
        let cases: [(query: String?, expected: [(String, String)])] = [
            (nil, []),
            ("lat=37.5&lng=127&radius_m=2000", [("lat", "37.5"), ("lng", "127"), ("radius_m", "2000")]),
            ("cursor=old.one&limit=5", [("limit", "5")]),
            ("category=%ED%96%84%EB%B2%84%EA%B1%B0&limit=5&cursor=x", [("category", "햄버거"), ("limit", "5")]),
            ("category=fast%20food&q=a%2Bb", [("category", "fast food"), ("q", "a+b")]),
            // Bytes that may not stand in a URL or would end the link, and a lone percent sign.
            ("q=<tag>\"x\"&p=100%&r=%zz", [("q", "<tag>\"x\""), ("p", "100%"), ("r", "%zz")]),
            ("category=햄버거", [("category", "햄버거")]),
        ]
        for (query, expected) in cases {
            let link = Page<Place>.nextLink(path: "/v1/places/nearby", query: query, cursor: "MjQ4LjM|fDg4.jDCM_A-Z")
            #expect(link.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "\(link)")
            #expect(!link.dropFirst().dropLast(13).contains { $0 == "<" || $0 == ">" || $0 == "\"" }, "\(link)")
            let parsed = try parameters(of: link)
            #expect(parsed.path == "/v1/places/nearby")
            #expect(parsed.items.dropLast().map(\.0) == expected.map(\.0), "\(link)")
            #expect(parsed.items.dropLast().map(\.1) == expected.map(\.1), "\(link)")
            #expect(parsed.items.last?.0 == "cursor" && parsed.items.last?.1 == "MjQ4LjM|fDg4.jDCM_A-Z", "\(link)")
        }
    }
}
