/// A change to one optional field: leave it, clear it, or set it.
public enum FieldEdit<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep
    case clear
    case set(Value)

    /// The field's value after the change.
    package func applied(to value: Value?) -> Value? {
        switch self {
        case .keep: value
        case .clear: nil
        case .set(let new): new
        }
    }
}

/// What `PATCH /v1/places/{id}` changes. `source` and `external_id` name where an imported
/// place came from and stay as they were created.
public struct PlaceEdit: Sendable, Equatable {
    public var name: String?
    public var lat: Double?
    public var lng: Double?
    public var address: FieldEdit<String> = .keep
    public var phone: FieldEdit<String> = .keep
    public var category: FieldEdit<String> = .keep
    public var website: FieldEdit<String> = .keep
    /// The languages whose names change: a name sets one, `nil` removes it; the others stay.
    public var names: [String: String?] = [:]
    public var openingHours: FieldEdit<String> = .keep
    public var timeZone: FieldEdit<String> = .keep

    public init(
        name: String? = nil, lat: Double? = nil, lng: Double? = nil, address: FieldEdit<String> = .keep,
        phone: FieldEdit<String> = .keep, category: FieldEdit<String> = .keep, website: FieldEdit<String> = .keep,
        names: [String: String?] = [:], openingHours: FieldEdit<String> = .keep, timeZone: FieldEdit<String> = .keep
    ) {
        self.name = name
        self.lat = lat
        self.lng = lng
        self.address = address
        self.phone = phone
        self.category = category
        self.website = website
        self.names = names
        self.openingHours = openingHours
        self.timeZone = timeZone
    }

    /// The stored fields with this change made (every engine applies an edit the same way).
    public func applied(to draft: PlaceDraft) -> PlaceDraft {
        var draft = draft
        draft.name = name ?? draft.name
        draft.lat = lat ?? draft.lat
        draft.lng = lng ?? draft.lng
        draft.address = address.applied(to: draft.address)
        draft.phone = phone.applied(to: draft.phone)
        draft.category = category.applied(to: draft.category)
        draft.website = website.applied(to: draft.website)
        for (language, name) in names {
            draft.names[language] = name
        }
        draft.openingHours = openingHours.applied(to: draft.openingHours)
        draft.timeZone = timeZone.applied(to: draft.timeZone)
        return draft
    }
}

/// The outcome of deleting a place.
public enum PlaceDeletion: Sendable, Equatable {
    case deleted
    case notFound
    /// Only the user who added a place may delete it (imported places have no such user).
    case forbidden
    /// Reviews keep their place: a place with reviews stays.
    case hasReviews(Int)
}

/// One import source as the command line lists it.
public struct PlaceSource: Sendable, Equatable {
    public var name: String
    public var places: Int
    /// Of those, the places that have reviews (they stay when the source is removed).
    public var reviewedPlaces: Int

    public init(name: String, places: Int, reviewedPlaces: Int) {
        self.name = name
        self.places = places
        self.reviewedPlaces = reviewedPlaces
    }
}
