import BurgerMapCore
import Foundation

extension Place: JSONWritable {
    /// Writes every field, `null` included: clients rely on the keys being present.
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writeMembers(to: &writer)
        }
    }

    /// The place's own answer (`GET /v1/places/{id}`, and those of adding and changing it): every
    /// field and `names` in full.
    func writeWhole(to writer: inout JSONWriter) {
        writer.object { writer in
            writeMembers(to: &writer)
            writer.key("names")
            writer.object { writer in
                for (language, name) in names.sorted(by: { $0.key < $1.key }) {
                    writer.key(text: language)
                    writer.value(name)
                }
            }
        }
    }

    /// The members without the braces, for objects that extend a place. `name` is the one of
    /// the request's language (`PlaceReading`); `open_now` is judged at the request's time.
    func writeMembers(to writer: inout JSONWriter) {
        writer.key("id")
        writer.value(id)
        writer.key("name")
        writer.value(shownName)
        writer.key("lat")
        writer.value(lat)
        writer.key("lng")
        writer.value(lng)
        writer.key("address")
        writer.value(address)
        writer.key("phone")
        writer.value(phone)
        writer.key("category")
        writer.value(category)
        writer.key("website")
        writer.value(website)
        writer.key("source")
        writer.value(source)
        writer.key("external_id")
        writer.value(externalId)
        writer.key("review_count")
        writer.value(reviewCount)
        writer.key("rating_avg")
        writer.value(ratingAvg)
        writer.key("cover_photo_url")
        writer.value(coverPhotoUrl)
        writer.key("created_at")
        writer.value(createdAt)
        writer.key("opening_hours")
        writer.value(openingHours)
        writer.key("timezone")
        writer.value(timeZone)
        writer.key("open_now")
        if let open = OpenNow.isOpen(hours: openingHours, timeZone: timeZone, at: PlaceReading.current?.now ?? Date()) {
            writer.value(open)
        } else {
            writer.value(nil as String?)
        }
        writer.key("attributes")
        writer.value(json: attributes)
    }
}

extension NearbyPlace: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            place.writeMembers(to: &writer)
            writer.key("distance_m")
            writer.value(distanceM, decimals: 3)
        }
    }
}

extension SearchResult: JSONWritable {
    /// A place with `distance_m` (`null` when the search had no point).
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            place.writeMembers(to: &writer)
            writer.key("distance_m")
            if let distanceM {
                writer.value(distanceM, decimals: 3)
            } else {
                writer.value(nil as String?)
            }
        }
    }
}
