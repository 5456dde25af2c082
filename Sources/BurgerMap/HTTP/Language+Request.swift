import BurgerMapCore
import Hummingbird

extension Language {
    /// The language a request asks for.
    static func of(_ request: Request) -> Language {
        preferred(by: request.headers[.acceptLanguage])
    }
}
