import Foundation

/// The recognised fields of one imported row or feature, as text, before validation.
package struct PlaceRow {
    package var name: String?
    package var latitude: String?
    package var longitude: String?
    package var externalID: String?
    package var address: String?
    package var city: String?
    package var province: String?
    package var postalCode: String?
    package var country: String?
    package var phone: String?
    package var category: String?
    package var websites: String?
    package var openingHours: String?
    /// Names in other languages (`name:xx` columns and properties), as read.
    package var names: [String: String] = [:]
    /// `PlaceAttributes.json` (OpenStreetMap extracts).
    package var attributes: String?

    /// Column names recognised by the importer (lower-cased), with the field each one fills.
    /// Earlier names win when a file has several for the same field.
    nonisolated(unsafe) static let columns: [(names: [String], field: WritableKeyPath<PlaceRow, String?>)] = [
        (["name"], \.name),
        (["latitude", "lat"], \.latitude),
        (["longitude", "lng", "lon"], \.longitude),
        (["id", "external_id", "keys"], \.externalID),
        (["address"], \.address),
        (["city"], \.city),
        (["province", "state"], \.province),
        (["postalcode", "postal_code"], \.postalCode),
        (["country"], \.country),
        (["phone"], \.phone),
        (["category"], \.category),
        (["websites", "website"], \.websites),
        (["opening_hours"], \.openingHours),
    ]

    /// The language of a column or property named `name:xx` (as written), or `nil`.
    package static func nameLanguage(_ column: String) -> String? {
        guard column.utf8.count > 5, column.lowercased().hasPrefix("name:") else { return nil }
        return String(column.dropFirst(5)).trimmingCharacters(in: .whitespaces)
    }

    /// Validates the row with the same field rules as the API and the schema (so no insert can
    /// fail on a row that passes), and turns it into a place, or says why it is skipped.
    /// A row without a category of its own gets `category` (`import --category`).
    package func draft(source: String, category defaultCategory: String? = nil, timeZone: String? = nil) -> Result<
        PlaceDraft, ImportSkip.Reason
    > {
        let clean = Self.cleaned
        guard let name = clean(name) else { return .failure(.missingName) }
        if let problem = TextField.placeName.problem(name) { return .failure(.invalid(problem)) }
        let lat: Double
        let lng: Double
        switch Self.coordinate(clean(latitude), named: "latitude", limit: 90) {
        case .success(let value): lat = value
        case .failure(let reason): return .failure(reason)
        }
        switch Self.coordinate(clean(longitude), named: "longitude", limit: 180) {
        case .success(let value): lng = value
        case .failure(let reason): return .failure(reason)
        }
        // Datafiniti lists several URLs in one field: the first is the place's own site.
        let website = clean(websites)?.split(separator: ",").first.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let draft = PlaceDraft(
            name: name, lat: lat, lng: lng, address: clean(address), city: clean(city),
            province: clean(province), postalCode: clean(postalCode), country: clean(country),
            phone: clean(phone), category: clean(category) ?? defaultCategory, website: website, source: source,
            externalId: clean(externalID), names: PlaceDetailRules.kept(names: names),
            openingHours: clean(openingHours), timeZone: timeZone, attributes: attributes)
        let texts: [(TextField, String?)] = [
            (.placeExternalID, draft.externalId), (.placeAddress, draft.address), (.placeCity, draft.city),
            (.placeProvince, draft.province), (.placePostalCode, draft.postalCode), (.placeCountry, draft.country),
            (.placePhone, draft.phone), (.placeCategory, draft.category), (.placeWebsite, draft.website),
            (.placeOpeningHours, draft.openingHours),
        ]
        for case (let field, let value?) in texts {
            if let problem = field.problem(value) { return .failure(.invalid(problem)) }
        }
        return .success(draft)
    }

    /// The text with line breaks and tabs turned into spaces (a quoted CSV field may span lines;
    /// the field rules refuse control characters) and without leading and trailing white space,
    /// or `nil` when nothing is left.
    package static func cleaned(_ text: String?) -> String? {
        guard let text else { return nil }
        let isBreak: (UInt8) -> Bool = { $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        // Over the contiguous bytes: the generic `contains` on the UTF-8 view was 3% of an import.
        let hasBreak = text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isBreak) }
        guard hasBreak ?? text.utf8.contains(where: isBreak) else { return trimmed(text) }
        return trimmed(
            String(
                String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" || $0 == "\t" ? " " : $0 }))
        )
    }

    /// The text without leading and trailing white space, or `nil` when nothing is left.
    /// (Foundation's `trimmingCharacters` bridges through NSString, which dominated import time.)
    package static func trimmed(_ text: String?) -> String? {
        guard let text, let head = text.utf8.first, let tail = text.utf8.last else { return nil }
        // Most fields start and end with a visible ASCII character: nothing to look up.
        if head > 0x20, head < 0x80, tail > 0x20, tail < 0x80 { return text }
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return nil }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        if first == scalars.startIndex, last == scalars.index(before: scalars.endIndex) { return text }
        return String(scalars[first...last])
    }

    private static func coordinate(_ text: String?, named name: String, limit: Double) -> Result<
        Double, ImportSkip.Reason
    > {
        guard let text else { return .failure(.missingCoordinate(name)) }
        guard let value = Double(text), value.isFinite else {
            return .failure(.notANumber(name, String(text.prefix(40))))
        }
        guard abs(value) <= limit else { return .failure(.outOfRange(name, value)) }
        return .success(value)
    }
}

/// A row or feature the importer left out, with where it stood and why.
public struct ImportSkip: Sendable, Equatable, CustomStringConvertible {
    /// Why a row was skipped.
    public enum Reason: Error, Sendable, Equatable, CustomStringConvertible {
        case missingName
        case missingCoordinate(String)
        case notANumber(String, String)
        case outOfRange(String, Double)
        /// A field breaks its rule (the same one the API applies).
        case invalid(FieldError)
        case duplicateID(String, first: String)
        case malformed(String)

        public var description: String {
            switch self {
            case .missingName: "missing name"
            case .missingCoordinate(let field): "missing \(field)"
            case .notANumber(let field, let text): "\(field) \"\(text)\" is not a number"
            case .outOfRange(let field, let value):
                "\(field) \(value) is out of range (\(field == "latitude" ? "-90 to 90" : "-180 to 180"))"
            case .invalid(let problem): "\(problem.field): \(problem.message.text(in: .english))"
            case .duplicateID(let id, let first): "id \"\(id.prefix(80))\" already given on \(first)"
            case .malformed(let why): why
            }
        }
    }

    /// "line 12" for CSV, "feature 3" for GeoJSON.
    public var location: String
    public var reason: Reason

    public init(location: String, reason: Reason) {
        self.location = location
        self.reason = reason
    }

    public var description: String { "\(location): \(reason)" }
}
