import Foundation

/// The recognised fields of one imported row or feature, as text, before validation.
struct PlaceRow {
    var name: String?
    var latitude: String?
    var longitude: String?
    var externalID: String?
    var address: String?
    var city: String?
    var province: String?
    var postalCode: String?
    var country: String?
    var phone: String?
    var category: String?
    var websites: String?

    /// The longest text an imported field may hold.
    static let maximumFieldLength = 1000

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
    ]

    /// Validates the row and turns it into a place, or says why it is skipped.
    func draft(source: String) -> Result<PlaceDraft, ImportSkip.Reason> {
        let clean = Self.trimmed
        guard let name = clean(name) else { return .failure(.missingName) }
        guard name.count <= 300 else { return .failure(.fieldTooLong("name")) }
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
        let texts: [(String, String?)] = [
            ("id", externalID), ("address", address), ("city", city), ("province", province),
            ("postal code", postalCode), ("country", country), ("phone", phone), ("category", category),
        ]
        for (field, value) in texts where (value?.count ?? 0) > Self.maximumFieldLength {
            return .failure(.fieldTooLong(field))
        }
        // Datafiniti lists several URLs in one field: the first is the place's own site.
        let website = clean(websites)?.split(separator: ",").first.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if (website?.count ?? 0) > Self.maximumFieldLength { return .failure(.fieldTooLong("website")) }
        return .success(
            PlaceDraft(
                name: name, lat: lat, lng: lng, address: clean(address), city: clean(city),
                province: clean(province), postalCode: clean(postalCode), country: clean(country),
                phone: clean(phone), category: clean(category), website: website, source: source,
                externalId: clean(externalID)))
    }

    /// The text without leading and trailing white space, or `nil` when nothing is left.
    /// (Foundation's `trimmingCharacters` bridges through NSString, which dominated import time.)
    static func trimmed(_ text: String?) -> String? {
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
        case fieldTooLong(String)
        case duplicateID(String, first: String)
        case malformed(String)

        public var description: String {
            switch self {
            case .missingName: "missing name"
            case .missingCoordinate(let field): "missing \(field)"
            case .notANumber(let field, let text): "\(field) \"\(text)\" is not a number"
            case .outOfRange(let field, let value):
                "\(field) \(value) is out of range (\(field == "latitude" ? "-90 to 90" : "-180 to 180"))"
            case .fieldTooLong(let field): "\(field) is longer than \(PlaceRow.maximumFieldLength) characters"
            case .duplicateID(let id, let first): "id \"\(id.prefix(80))\" already given on \(first)"
            case .malformed(let why): why
            }
        }
    }

    /// "line 12" for CSV, "feature 3" for GeoJSON.
    public var location: String
    public var reason: Reason

    public var description: String { "\(location): \(reason)" }
}
