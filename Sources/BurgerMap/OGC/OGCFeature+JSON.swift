import BurgerMapCore

/// The origin OGC answers write their links with (`scheme://host`), bound while a handler writes
/// features, so that a review's `photo_urls` are absolute as every other link of the answer is
/// (QGIS and GDAL resolve no root-relative URL).
enum OGCFeatureLinks {
    @TaskLocal static var base: String?
}

extension ReviewFeature: GeoFeature {
    var featureID: Int64 { id }
    var featureLng: Double { lng }
    var featureLat: Double { lat }

    /// The properties of a review on the map: its place, rating, title, the first 200
    /// characters of its text, its author's nickname, its photos (the URLs the review JSON
    /// gives) and when it was written. Every key is present, `null` included.
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("place_id")
            writer.value(placeID)
            writer.key("place_name")
            writer.value(placeName)
            writer.key("rating")
            writer.value(rating)
            writer.key("title")
            writer.value(title)
            writer.key("excerpt")
            writer.value(excerpt)
            writer.key("author_nickname")
            writer.value(authorNickname)
            writer.key("photo_urls")
            writer.array { writer in
                let base = OGCFeatureLinks.base ?? ""
                for photoID in photoIDs { writer.value(base + PhotoURL.full(photoID)) }
            }
            writer.key("created_at")
            writer.value(createdAt)
        }
    }
}

extension JSONWriter {
    /// One GeoJSON `Feature`, as `featureCollection` writes each of its features, with members
    /// after `properties` (an OGC feature's links).
    mutating func feature<Item: GeoFeature>(_ item: Item, members: (inout JSONWriter) -> Void) {
        object { writer in
            writer.key("type")
            writer.value("Feature")
            writer.key("id")
            writer.value(item.featureID)
            writer.point(lng: item.featureLng, lat: item.featureLat)
            writer.key("properties")
            item.write(to: &writer)
            members(&writer)
        }
    }
}
