/// A place on the map, as the API shows it (`Place` in the contract).
public struct Place: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var lat: Double
    public var lng: Double
    public var address: String?
    public var phone: String?
    public var category: String?
    /// The place's own web site (imported, or set by its creator).
    public var website: String?
    public var source: String?
    public var externalId: String?
    public var reviewCount: Int
    public var ratingAvg: Double?
    public var coverPhotoUrl: String?
    public var createdAt: Timestamp
    /// The place's names in other languages (language code → name, OpenStreetMap's `name:xx`);
    /// `name` is the default. Read from `storedNames` each time it is asked.
    public var names: [String: String] {
        get { StoredNames.names(storedNames) }
        set { storedNames = StoredNames.text(newValue) }
    }
    /// `names` as stored (`StoredNames`), `nil` for none. A place keeps the stored text: an answer
    /// shows one of the names at most (`NamePreference.name(inStored:)`, a scan of the text), and
    /// building a dictionary for every place read cost about 6% of a nearby answer's CPU at three
    /// names a place, asked for or not.
    public var storedNames: String?
    /// The opening hours as written (OpenStreetMap's `opening_hours` syntax); `OpeningHours`
    /// evaluates the common forms.
    public var openingHours: String?
    /// The IANA time zone the opening hours are judged in.
    public var timeZone: String?
    /// Further facts as a JSON object (`PlaceAttributes`: cuisine, brand, wheelchair…), written
    /// into answers as stored.
    public var attributes: String?

    public init(
        id: Int64, name: String, lat: Double, lng: Double, address: String?, phone: String?, category: String?,
        website: String?, source: String?, externalId: String?, reviewCount: Int, ratingAvg: Double?,
        coverPhotoUrl: String?, createdAt: Timestamp, storedNames: String? = nil, openingHours: String? = nil,
        timeZone: String? = nil, attributes: String? = nil
    ) {
        self.id = id
        self.name = name
        self.lat = lat
        self.lng = lng
        self.address = address
        self.phone = phone
        self.category = category
        self.website = website
        self.source = source
        self.externalId = externalId
        self.reviewCount = reviewCount
        self.ratingAvg = ratingAvg
        self.coverPhotoUrl = coverPhotoUrl
        self.createdAt = createdAt
        self.storedNames = storedNames
        self.openingHours = openingHours
        self.timeZone = timeZone
        self.attributes = attributes
    }
}

extension Place {
    /// The `address` people read, from whichever of a place's address parts are set:
    /// "324 Main St, Massena, NY 13662, US" (the postal code follows the province in one part).
    /// Every engine shows this line; the SQLite engine writes the same line straight from its
    /// row's bytes (`displayAddress` in `BurgerMapSQLite`), since it runs for every place of
    /// every page.
    public static func addressLine(
        street: String?, city: String?, province: String?, postalCode: String?, country: String?
    ) -> String? {
        guard street != nil || city != nil || province != nil || postalCode != nil || country != nil else { return nil }
        var line = ""
        func append(_ part: String?, after separator: String) {
            guard let part else { return }
            if !line.isEmpty { line += separator }
            line += part
        }
        append(street, after: ", ")
        append(city, after: ", ")
        append(province, after: ", ")
        append(postalCode, after: province == nil ? ", " : " ")
        append(country, after: ", ")
        return line
    }
}

/// A place with its great-circle distance from a query point (`NearbyPlace` in the contract).
public struct NearbyPlace: Sendable {
    public var place: Place
    public var distanceM: Double

    public init(place: Place, distanceM: Double) {
        self.place = place
        self.distanceM = distanceM
    }
}

/// The fields of a place that a client or an import supplies.
public struct PlaceDraft: Sendable, Equatable {
    public var name: String
    public var lat: Double
    public var lng: Double
    public var address: String?
    public var city: String?
    public var province: String?
    public var postalCode: String?
    public var country: String?
    public var phone: String?
    public var category: String?
    public var website: String?
    public var source: String?
    public var externalId: String?
    /// Names in other languages (`Place.names`).
    public var names: [String: String]
    public var openingHours: String?
    public var timeZone: String?
    /// `Place.attributes`: a JSON object written by `PlaceAttributes.json`.
    public var attributes: String?

    public init(
        name: String, lat: Double, lng: Double, address: String? = nil, city: String? = nil,
        province: String? = nil, postalCode: String? = nil, country: String? = nil,
        phone: String? = nil, category: String? = nil, website: String? = nil,
        source: String? = nil, externalId: String? = nil, names: [String: String] = [:],
        openingHours: String? = nil, timeZone: String? = nil, attributes: String? = nil
    ) {
        self.name = name
        self.lat = lat
        self.lng = lng
        self.address = address
        self.city = city
        self.province = province
        self.postalCode = postalCode
        self.country = country
        self.phone = phone
        self.category = category
        self.website = website
        self.source = source
        self.externalId = externalId
        self.names = names
        self.openingHours = openingHours
        self.timeZone = timeZone
        self.attributes = attributes
    }
}
