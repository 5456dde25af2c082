import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap

@Suite("Localized problem documents")
struct LocalizationTests {
    /// The `{name}` placeholders of a template.
    static func placeholders(_ template: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    @Test("every problem code and message has English, Korean and Japanese, with the same placeholders")
    func catalogueIsComplete() {
        for code in ProblemCode.allCases {
            for language in Language.allCases {
                let title = ProblemCatalog.statusTitles[Int(code.status.code)]?[language]
                #expect(title?.isEmpty == false, "title of \(code.rawValue)'s status in \(language.rawValue)")
            }
        }
        for key in MessageKey.allCases {
            let english = ProblemCatalog.messages[key]?[.english] ?? ""
            for language in Language.allCases {
                let text = ProblemCatalog.messages[key]?[language]
                #expect(text?.isEmpty == false, "\(key.rawValue) in \(language.rawValue)")
                #expect(Self.placeholders(text ?? "") == Self.placeholders(english), "\(key.rawValue) in \(language)")
            }
        }
        #expect(ProblemCatalog.statusTitles[404]?[.korean] != ProblemCatalog.statusTitles[404]?[.english])
    }

    @Test("every message renders in every language with its placeholders filled, none left over")
    func messagesRender() {
        for key in MessageKey.allCases {
            let english = ProblemCatalog.messages[key]?[.english] ?? ""
            let arguments = Dictionary(uniqueKeysWithValues: Self.placeholders(english).map { ($0, "«\($0)»") })
            for language in Language.allCases {
                let text = Message(key, arguments).text(in: language)
                #expect(
                    text.range(of: #"\{[a-z_]+\}"#, options: .regularExpression) == nil,
                    "\(key.rawValue) in \(language.rawValue): \(text)")
            }
        }
    }

    @Test("every problem's title is its status's phrase, as RFC 9457 asks of type about:blank")
    func statusTitles() throws {
        for code in ProblemCode.allCases {
            let body = try Problem(code, .fieldRequired).encodedBody(in: .english)
            let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(object["type"] as? String == "about:blank")
            #expect(object["title"] as? String == code.status.reasonPhrase, "\(code.rawValue)")
        }
        #expect(ProblemCode.unauthorized.status.reasonPhrase == "Unauthorized")
    }

    @Test(
        "Accept-Language picks the best supported language by q-value, falling back to English",
        arguments: [
            ("ko-KR,ko;q=0.9,en-US;q=0.8", Language.korean), ("ja", .japanese),
            ("fr-FR, ja;q=0.4, ko;q=0.3", .japanese),
            ("en;q=0.2, ko;q=0.8", .korean), ("ko;q=0, ja;q=0.1", .japanese), ("fr", .english), ("*", .english),
            ("", .english), ("ko;q=abc", .english), ("ja;q=0.5, ko;q=0.5", .japanese),
        ])
    func acceptLanguage(header: String, expected: Language) {
        #expect(Language.preferred(by: header) == expected)
    }

    @Test(
        "problems answer in the requested language: title, detail and field messages", arguments: StoreEngine.available)
    func problemsAreLocalized(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let korean = try await client.send(.get, "/v1/places/nearby?lat=100&lng=0", language: "ko-KR,ko;q=0.9")
            #expect(korean.status == .badRequest)
            #expect(korean.headers[.contentLanguage] == "ko")
            let body = try json(korean)
            #expect(body["title"] as? String == "잘못된 요청")
            #expect((body["errors"] as? [[String: Any]])?.first?["message"] as? String == "lat은(는) -90에서 90 사이여야 합니다")

            let japanese = try await client.send(.get, "/v1/places/12345", language: "ja")
            #expect(try json(japanese)["detail"] as? String == "ID 12345 の場所はありません。")
            #expect(try json(japanese)["title"] as? String == "見つかりません")

            let english = try await client.send(
                .post, "/v1/auth/login", json: ["email": "a@b.co", "password": "wrong pass"], language: "fr")
            #expect(try json(english)["title"] as? String == "Unauthorized")
            #expect(english.headers[.contentLanguage] == "en")
        }
    }
}
