import BurgerMapCore
import Hummingbird

extension KeyedDecodingContainer {
    /// The value of an optional field of a JSON body: `nil` when the field is absent. `null` is
    /// refused (`400 validation_failed`, code `not_null`): a synthesized `Decodable` reads it as
    /// absent, so `{"text": null}` would be answered `200` with nothing changed, which no
    /// client means.
    func decodeUnlessNull<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) {
            throw Problem.invalid(Request.snakeCase(key.stringValue), "not_null", .fieldNotNull)
        }
        return try decode(T.self, forKey: key)
    }
}
