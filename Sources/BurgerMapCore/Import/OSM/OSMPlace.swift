import Foundation

/// Which OSM objects are places.
package enum OSMPlaceFilter: String, Sendable, CaseIterable {
    /// `amenity` = `fast_food` or `restaurant` whose `cuisine` (a `;`-separated list, each entry
    /// trimmed and compared case-insensitively) contains `burger` (the default).
    case burger
    /// Every `amenity` of `fast_food`, `restaurant`, `cafe` and `food_court`.
    case allFood = "all-food"

    /// The `amenity` values this filter can accept: an object without one of them is never a
    /// place, which is what lets the PBF decoder test string-table indices before building any
    /// string.
    package var amenities: [String] {
        switch self {
        case .burger: ["fast_food", "restaurant"]
        case .allFood: ["fast_food", "restaurant", "cafe", "food_court"]
        }
    }

    /// Whether an object with these tags is a place (relations must be multipolygons as well,
    /// which the reader checks apart).
    package func matches(_ tags: [String: String]) -> Bool {
        guard let amenity = tags["amenity"], amenities.contains(amenity) else { return false }
        switch self {
        case .allFood: return true
        case .burger: return tags["cuisine"].map(Self.listsBurger) ?? false
        }
    }

    /// Whether a `cuisine` value such as `american; Burger` names burgers.
    static func listsBurger(_ cuisine: String) -> Bool {
        cuisine.split(separator: ";", omittingEmptySubsequences: true).contains {
            $0.trimmingCharacters(in: .whitespaces).lowercased() == "burger"
        }
    }
}

/// One place-like OSM object found by the filter, named or not (the importer skips and counts
/// the nameless ones).
package struct OSMPlace: Sendable, Equatable {
    /// `node/123`, `way/456` or `relation/789`.
    package var id: String
    /// The node's position, or a point inside the area of a way or multipolygon (its centroid
    /// when that lies inside).
    package var lat: Double
    package var lng: Double
    /// Every tag as written in the file.
    package var tags: [String: String]

    package init(id: String, lat: Double, lng: Double, tags: [String: String]) {
        self.id = id
        self.lat = lat
        self.lng = lng
        self.tags = tags
    }
}

/// What the reader yields: a place, or an object that passed the tag filter but has no usable
/// position (a way whose node lies outside the extract, a multipolygon whose rings do not close).
/// Objects that are not places (open ways, untagged nodes, other relations) are never reported.
package enum OSMItem: Sendable, Equatable {
    case place(OSMPlace)
    /// `id` as in `OSMPlace.id`; `reason` starts with it, e.g. "way/5: node 7 is missing from
    /// the extract".
    case skip(id: String, reason: String)
}
