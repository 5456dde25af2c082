import BurgerMapCore
import Foundation
import Hummingbird

extension PlacesController {
    /// `{name?, lat?, lng?, address?, phone?, category?, website?}`. Left out keeps a field;
    /// `null` or `""` clears an optional one; `name`, `lat` and `lng` cannot be `null`.
    struct UpdateBody: Decodable {
        var name: String?
        var lat: Double?
        var lng: Double?
        var address: FieldEdit<String>
        var phone: FieldEdit<String>
        var category: FieldEdit<String>
        var website: FieldEdit<String>

        enum CodingKeys: String, CodingKey { case name, lat, lng, address, phone, category, website }

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
        }
    }

    /// `PATCH /v1/places/{id}`: the user who added the place corrects it; anyone else is `403`
    /// (imported places have no such user: operators re-import or remove their source).
    @Sendable func update(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try context.parameters.resourceID(.placeNotFound)
        let body = try await request.decodeJSON(as: UpdateBody.self)
        let name = body.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        var validator = BodyValidator()
        validator.check { errors in
            if let name { TextField.placeName.check(name, into: &errors) }
            Self.checkPosition(lat: body.lat, lng: body.lng, into: &errors)
            let optional: [(TextField, FieldEdit<String>)] = [
                (.placeAddress, body.address), (.placePhone, body.phone), (.placeCategory, body.category),
                (.placeWebsite, body.website),
            ]
            for case (let field, .set(let value)) in optional { field.check(value, into: &errors) }
        }
        try validator.validate()
        let edit = PlaceEdit(
            name: name, lat: body.lat, lng: body.lng, address: body.address, phone: body.phone,
            category: body.category, website: body.website)
        switch try await store.updatePlace(id: id, by: context.user.id, edit, at: .now()) {
        case .done(let place): return place.response()
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
