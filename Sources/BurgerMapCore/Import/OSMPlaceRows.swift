import Foundation

/// Reads the places of an OpenStreetMap extract (`OSMPlaceReader`) as import rows: the one rule
/// that turns an object's tags into a place's fields.
package struct OSMPlaceRowReader: PlaceRowReader {
    private let reader: OSMPlaceReader
    private let filter: OSMPlaceFilter
    private var count = 0
    /// Reports name an object by its number in the reader's order; the reason names its id.
    package let locationWord = "object"

    package init(path: String, filter: OSMPlaceFilter) throws {
        reader = try OSMPlaceReader(path: path, filter: filter)
        self.filter = filter
    }

    package var bytesRead: Int64 { reader.bytesRead }
    package var size: Int64? { reader.size }

    package mutating func next() throws -> (position: Int, item: DatasetItem)? {
        guard let item = try reader.next() else { return nil }
        count += 1
        switch item {
        case .skip(let id, let reason): return (count, .malformed(reason.hasPrefix(id) ? reason : "\(id): \(reason)"))
        case .place(let place):
            // A place without a `name` is skipped, even with names in other languages: the
            // default name is what every answer falls back to.
            guard let name = place.tags["name"], PlaceRow.cleaned(name) != nil else {
                return (count, .malformed("\(place.id) has no name tag"))
            }
            return (count, .row(OSMPlaceFields.row(place, filter: filter)))
        }
    }
}

/// How an OpenStreetMap object's tags become a place's fields.
package enum OSMPlaceFields {
    /// The row of `place`: `name` and every `name:xx`, the address in the country's order, the
    /// phone and web site (`contact:*` as a fallback; a value that breaks its field's rule is
    /// left out rather than losing the place), `opening_hours` as written, the facts of
    /// `PlaceAttributes`, the category of the filter, and `node/…`, `way/…` or `relation/…` as
    /// the external id.
    package static func row(_ place: OSMPlace, filter: OSMPlaceFilter) -> PlaceRow {
        let tags = place.tags
        var row = PlaceRow()
        row.name = tags["name"]
        row.latitude = String(place.lat)
        row.longitude = String(place.lng)
        row.externalID = place.id
        row.address = address(tags)
        row.phone = kept(tags["phone"] ?? tags["contact:phone"], .placePhone)
        row.websites = kept(webAddress(tags["website"] ?? tags["contact:website"]), .placeWebsite)
        row.openingHours = kept(tags["opening_hours"], .placeOpeningHours)
        row.category = category(tags, filter: filter)
        for (key, value) in tags {
            if let language = PlaceRow.nameLanguage(key) { row.names[language] = value }
        }
        row.attributes = PlaceAttributes.json(attributes(tags))
        return row
    }

    /// `text` cleaned when it keeps `field`'s rule, else `nil`.
    private static func kept(_ text: String?, _ field: TextField) -> String? {
        guard let text = PlaceRow.cleaned(text), field.problem(text) == nil else { return nil }
        // Several values (`;`-separated) fit a phone field only whole when short; keep the first.
        if field.name == TextField.placePhone.name, let first = text.split(separator: ";").first {
            return PlaceRow.cleaned(String(first))
        }
        return text
    }

    /// OpenStreetMap's `website` is often written without its scheme: `https://` is assumed.
    private static func webAddress(_ text: String?) -> String? {
        guard let text = PlaceRow.cleaned(text) else { return nil }
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return text }
        return text.contains("://") ? nil : "https://" + text
    }

    /// `burger` for a place of the burger filter (and for a burger place of `all-food`), else the
    /// `amenity` (`fast_food`, `restaurant`, `cafe`, `food_court`).
    static func category(_ tags: [String: String], filter: OSMPlaceFilter) -> String? {
        if filter == .burger || cuisines(tags).contains("burger") { return "burger" }
        return tags["amenity"]
    }

    /// The `cuisine` list: `;`-separated, trimmed, lower-cased, empty items left out.
    static func cuisines(_ tags: [String: String]) -> [String] {
        (tags["cuisine"] ?? "").split(separator: ";").compactMap {
            PlaceRow.cleaned(String($0))?.lowercased()
        }
    }

    /// The facts `PlaceAttributes` keeps: `cuisine` as a list; `yes` and `no` as booleans and any
    /// other value (`only`, `limited`) as written; `brand` as written.
    static func attributes(_ tags: [String: String]) -> [String: PlaceAttribute] {
        var values: [String: PlaceAttribute] = [:]
        let cuisine = cuisines(tags).filter { $0.utf8.count <= PlaceAttributes.maxValueBytes }
        if !cuisine.isEmpty { values["cuisine"] = .list(cuisine) }
        if let brand = PlaceRow.cleaned(tags["brand"]), brand.utf8.count <= PlaceAttributes.maxValueBytes {
            values["brand"] = .text(brand)
        }
        for key in ["wheelchair", "takeaway", "delivery", "diet:vegetarian", "diet:vegan"] {
            guard let value = PlaceRow.cleaned(tags[key]), value.utf8.count <= PlaceAttributes.maxValueBytes else {
                continue
            }
            switch value.lowercased() {
            case "yes": values[key] = .flag(true)
            case "no": values[key] = .flag(false)
            default: values[key] = .text(value)
            }
        }
        return values
    }

    /// The `addr:*` tags joined into one line in the usual order of the country (`addr:country`):
    /// Korea and Japan from the largest area down to the number, with the postal code first;
    /// Germany, Austria, Switzerland and most of continental Europe street and number, then
    /// postal code and city; elsewhere (and without a country) number and street, city,
    /// province and postal code. `addr:full` wins when given.
    static func address(_ tags: [String: String]) -> String? {
        func tag(_ key: String) -> String? { PlaceRow.cleaned(tags["addr:" + key]) }
        if let full = tag("full") { return full }
        let country = tag("country")?.uppercased()
        let number = tag("housenumber")
        let street = tag("street") ?? tag("place")
        let city = tag("city")
        let province = tag("province") ?? tag("state")
        let postcode = tag("postcode")
        func joined(_ parts: [String?], _ separator: String) -> String? {
            let present = parts.compactMap { $0 }
            return present.isEmpty ? nil : present.joined(separator: separator)
        }
        let line: String?
        switch country {
        case "KR":
            line = joined([postcode, province, city, tag("district"), street, number], " ")
        case "JP":
            let area = joined([province, city, tag("quarter"), tag("neighbourhood"), street], "")
            let block = joined([tag("block_number"), number], "-")
            line = joined([postcode.map { "〒" + $0 }, joined([area, block], ""), nil], " ")
        case "DE", "AT", "CH", "NL", "BE", "IT", "ES", "PT", "PL", "CZ", "SK", "DK", "SE", "NO", "FI", "HU", "HR", "SI":
            line = joined([joined([street, number], " "), joined([postcode, city], " "), country], ", ")
        default:
            line = joined(
                [joined([number, street], " "), city, joined([province, postcode], " "), country], ", ")
        }
        guard let line, TextField.placeAddress.problem(line) == nil else { return nil }
        return line
    }
}

/// What the licence of a source's data requires its readers to be shown.
public enum PlaceSourceAttribution {
    /// The Open Database Licence's attribution of OpenStreetMap data.
    public static let openStreetMap = "© OpenStreetMap contributors"
}
