import BurgerMapCore
import HTTPTypes
import Hummingbird

/// The two forms a list of places answers in: the API's JSON, or an RFC 7946 GeoJSON
/// `FeatureCollection` that map clients (Leaflet, MapLibre, MapKit) hand straight to a layer.
enum PlaceListFormat: Sendable {
    case json
    case geoJSON

    static let geoJSONType = "application/geo+json"

    /// `format=json` or `format=geojson` when given (anything else is `400 validation_failed`);
    /// else GeoJSON when `Accept` ranks `application/geo+json` above `application/json` (a tie
    /// goes to the one listed first), JSON otherwise.
    static func read(_ reader: inout QueryReader, _ request: Request) -> PlaceListFormat {
        if let format = reader.text("format") {
            switch format {
            case "json": return .json
            case "geojson": return .geoJSON
            default:
                reader.fail("format", "unsupported", .fieldWrongType, ["expected": "json, geojson"])
                return .json
            }
        }
        return accepts(request.headers[values: .accept].joined(separator: ",")) ? .geoJSON : .json
    }

    /// Whether an `Accept` value prefers GeoJSON. (A small reader of media ranges and `q`:
    /// Hummingbird has none, and only two types matter here; at most 32 ranges are read.)
    static func accepts(_ accept: String) -> Bool {
        var best: (geo: Double, json: Double) = (0, 0)
        var firstListed: PlaceListFormat?
        for range in accept.split(separator: ",").prefix(32) {
            let parts = range.split(separator: ";")
            guard let type = parts.first?.trimmingCharacters(in: .whitespaces).lowercased() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == "q", let q = Double(pair[1]), (0...1).contains(q) {
                    quality = q
                }
            }
            if type == geoJSONType {
                best.geo = max(best.geo, quality)
                if quality > 0, firstListed == nil { firstListed = .geoJSON }
            } else if type == "application/json" {
                best.json = max(best.json, quality)
                if quality > 0, firstListed == nil { firstListed = .json }
            }
        }
        guard best.geo > 0 else { return false }
        return best.geo > best.json || (best.geo == best.json && firstListed == .geoJSON)
    }
}

/// An item of a place list that is a point on the map: GeoJSON writes it as a `Feature` with
/// the item's JSON object as its `properties`.
protocol GeoFeature: JSONWritable {
    var featureID: Int64 { get }
    var featureLng: Double { get }
    var featureLat: Double { get }
}

extension Place: GeoFeature {
    var featureID: Int64 { id }
    var featureLng: Double { lng }
    var featureLat: Double { lat }
}

extension NearbyPlace: GeoFeature {
    var featureID: Int64 { place.id }
    var featureLng: Double { place.lng }
    var featureLat: Double { place.lat }
}

extension SearchResult: GeoFeature {
    var featureID: Int64 { place.id }
    var featureLng: Double { place.lng }
    var featureLat: Double { place.lat }
}

extension JSONWriter {
    /// `{"type": "FeatureCollection", "features": [...], <foreign members>}`: each item a
    /// `Point` feature in `[lng, lat]` order (RFC 7946 §3.1.1) with the item's id.
    mutating func featureCollection<Item: GeoFeature>(
        _ items: [Item], foreignMembers: (inout JSONWriter) -> Void
    ) {
        object { writer in
            writer.key("type")
            writer.value("FeatureCollection")
            writer.key("features")
            writer.array { writer in
                for index in items.indices {
                    writer.object { writer in
                        writer.key("type")
                        writer.value("Feature")
                        writer.key("id")
                        writer.value(items[index].featureID)
                        writer.point(lng: items[index].featureLng, lat: items[index].featureLat)
                        writer.key("properties")
                        items[index].write(to: &writer)
                    }
                }
            }
            foreignMembers(&writer)
        }
    }

    /// `"geometry": {"type": "Point", "coordinates": [lng, lat]}`.
    mutating func point(lng: Double, lat: Double) {
        key("geometry")
        object { writer in
            writer.key("type")
            writer.value("Point")
            writer.key("coordinates")
            writer.array { writer in
                writer.value(lng)
                writer.value(lat)
            }
        }
    }

    /// The written GeoJSON as a response (`application/geo+json`).
    func geoJSONResponse(headers: HTTPFields = [:]) -> Response {
        var response = response(headers: headers)
        response.headers[.contentType] = PlaceListFormat.geoJSONType
        return response
    }
}

extension Page where Item: GeoFeature {
    /// The page in `format`; GeoJSON keeps the cursor as the foreign member `next_cursor` and in
    /// the `Link` header. Both forms say `Vary: Accept`, since `Accept` may choose.
    func response(for request: Request, format: PlaceListFormat) -> Response {
        guard format == .geoJSON else {
            var response = response(for: request)
            response.headers.append(HTTPField(name: .vary, value: "Accept"))
            return response
        }
        var headers: HTTPFields = [.vary: "Accept"]
        if let nextCursor {
            headers[.link] = Self.nextLink(
                path: request.uri.path, query: request.uri.query, cursor: nextCursor)
        }
        var writer = JSONWriter(capacity: 512 + items.count * 520)
        writer.featureCollection(items) { writer in
            writer.key("next_cursor")
            writer.value(nextCursor)
        }
        return writer.geoJSONResponse(headers: headers)
    }
}
