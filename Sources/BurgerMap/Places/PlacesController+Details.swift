import BurgerMapCore
import Foundation
import Hummingbird

/// The members of a place body that adding and changing a place share beyond the plain texts:
/// `names` (language → name; `null` removes a language in an edit), `opening_hours` and
/// `timezone`.
///
/// `names` is decoded from the body's bytes once more without the snake-case key strategy: its
/// keys are data (`zh_pinyin` must stay `zh_pinyin`), and the strategy rewrites dictionary keys.
struct PlaceDetailsBody: Decodable {
    var names: [String: String?]?
    /// Whether the body says `"names": null` (refused: a change removes languages one by one).
    var namesIsNull = false

    enum CodingKeys: String, CodingKey { case names }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.names) else { return }
        if try container.decodeNil(forKey: .names) {
            namesIsNull = true
        } else {
            names = try container.decode([String: String?].self, forKey: .names)
        }
    }

    /// The body's `names`, trimmed, with their problems added to `errors` (a `names` that is not
    /// an object of texts and nulls is a `validation_failed` of its own).
    static func names(in bytes: Data, allowingRemoval: Bool, into errors: inout [FieldError]) -> [String: String?] {
        let decoded: PlaceDetailsBody
        do {
            decoded = try JSONDecoder().decode(PlaceDetailsBody.self, from: bytes)
        } catch {
            errors.append(FieldError(field: "names", code: "wrong_type", .fieldWrongType, ["expected": "object"]))
            return [:]
        }
        if decoded.namesIsNull {
            errors.append(FieldError(field: "names", code: "not_null", .fieldNotNull))
        }
        var names: [String: String?] = [:]
        for (language, name) in decoded.names ?? [:] {
            guard let name else {
                // `null` removes a language from a place; a new place has none to remove.
                if allowingRemoval {
                    names[language] = .some(nil)
                } else {
                    errors.append(
                        FieldError(field: "names." + String(language.prefix(40)), code: "not_null", .fieldNotNull))
                }
                continue
            }
            names[language] = name.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        errors += PlaceDetailRules.problems(names: names)
        return names
    }
}

extension PlacesController {
    /// The time zone a new place gets: its own, else the server's `--default-timezone`.
    func timeZone(for requested: String?) -> String? {
        requested ?? defaultTimeZone
    }

    /// Checks `opening_hours` and `timezone` when they are set.
    static func checkHours(_ hours: String?, timeZone: String?, into errors: inout [FieldError]) {
        if let hours { TextField.placeOpeningHours.check(hours, into: &errors) }
        if let timeZone, let problem = PlaceDetailRules.problem(timeZone: timeZone) { errors.append(problem) }
    }
}
