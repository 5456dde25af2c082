import BurgerMapCore
import Foundation
import Hummingbird

extension PlacesController {
    /// `{name?, lat?, lng?, address?, phone?, category?, website?, opening_hours?, timezone?,
    /// names?}`. Left out keeps a field; `null` or `""` clears an optional one; `name`, `lat` and
    /// `lng` cannot be `null`. `names` changes the languages it names (`null` removes one).
    struct UpdateBody: Decodable {
        var name: String?
        var lat: Double?
        var lng: Double?
        var address: FieldEdit<String>
        var phone: FieldEdit<String>
        var category: FieldEdit<String>
        var website: FieldEdit<String>
        var openingHours: FieldEdit<String>
        var timezone: FieldEdit<String>

        enum CodingKeys: String, CodingKey {
            case name, lat, lng, address, phone, category, website, openingHours, timezone
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeUnlessNull(String.self, forKey: .name)
            lat = try container.decodeUnlessNull(Double.self, forKey: .lat)
            lng = try container.decodeUnlessNull(Double.self, forKey: .lng)
            func edit(_ key: CodingKeys) throws -> FieldEdit<String> {
                guard container.contains(key) else { return .keep }
                guard let text = try container.decode(String?.self, forKey: key) else { return .clear }
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                return trimmed.isEmpty ? .clear : .set(trimmed)
            }
            address = try edit(.address)
            phone = try edit(.phone)
            category = try edit(.category)
            website = try edit(.website)
            openingHours = try edit(.openingHours)
            timezone = try edit(.timezone)
        }
    }

    /// `PATCH /v1/places/{id}`: the user who added the place corrects it; anyone else is `403`
    /// (imported places have no such user: operators re-import or remove their source).
    @Sendable func update(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.placeNotFound)
        let (body, bytes) = try await request.decodeJSONWithBytes(as: UpdateBody.self)
        let name = body.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        var names: [String: String?] = [:]
        var validator = BodyValidator()
        validator.check { errors in
            if let name { TextField.placeName.check(name, into: &errors) }
            Self.checkPosition(lat: body.lat, lng: body.lng, into: &errors)
            let optional: [(TextField, FieldEdit<String>)] = [
                (.placeAddress, body.address), (.placePhone, body.phone), (.placeCategory, body.category),
                (.placeWebsite, body.website),
            ]
            for case (let field, .set(let value)) in optional { field.check(value, into: &errors) }
            if case .set(let hours) = body.openingHours { TextField.placeOpeningHours.check(hours, into: &errors) }
            if case .set(let zone) = body.timezone, let problem = PlaceDetailRules.problem(timeZone: zone) {
                errors.append(problem)
            }
            names = PlaceDetailsBody.names(in: bytes, allowingRemoval: true, into: &errors)
        }
        try validator.validate()
        if !names.isEmpty, let stored = try await store.place(id: id) {
            var after = stored.names
            for (language, name) in names { after[language] = name }
            if after.count > PlaceNames.maxLanguages {
                throw Problem.validation([
                    FieldError(
                        field: "names", code: "too_many", .tooManyLanguages, ["max": "\(PlaceNames.maxLanguages)"])
                ])
            }
        }
        let edit = PlaceEdit(
            name: name, lat: body.lat, lng: body.lng, address: body.address, phone: body.phone,
            category: body.category, website: body.website, names: names, openingHours: body.openingHours,
            timeZone: body.timezone)
        switch try await store.updatePlace(id: id, by: context.user.id, edit, at: .now()) {
        case .done(let place): return place.wholeResponse()
        case .notFound: throw Problem.notFound(.placeNotFound, id: id)
        case .forbidden: throw Problem(.forbidden, .notPlaceCreator)
        }
    }

    /// `DELETE /v1/places/{id}`: the user who added the place removes it (`204`); a place with
    /// reviews stays (`409`): reviews keep their place.
    @Sendable func delete(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.placeNotFound)
        switch try await store.deletePlace(id: id, by: context.user.id) {
        case .deleted: return Response(status: .noContent)
        case .notFound: throw Problem.notFound(.placeNotFound, id: id)
        case .forbidden: throw Problem(.forbidden, .notPlaceCreator)
        case .hasReviews(let count): throw Problem(.conflict, .placeHasReviews, ["count": "\(count)"])
        }
    }
}
