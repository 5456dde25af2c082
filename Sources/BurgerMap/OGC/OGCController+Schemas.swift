import BurgerMapCore
import Hummingbird

extension OGCController {
    /// `GET /ogc/collections/{collectionId}/queryables`: the properties that the items route
    /// filters on, as a JSON Schema (`application/schema+json`).
    @Sendable func queryables(_ request: Request, context: AppRequestContext) async throws -> Response {
        let collection = try OGCCollection.named(context.parameters.get("collectionId"))
        var reader = QueryReader(request)
        _ = Self.readFormat(&reader)
        try reader.validate()
        let base = base(request, context)
        var writer = JSONWriter(capacity: 1024)
        writer.object { writer in
            writer.key("$schema")
            writer.value("https://json-schema.org/draft/2020-12/schema")
            writer.key("$id")
            writer.value(base + "/ogc/collections/\(collection.rawValue)/queryables")
            writer.key("type")
            writer.value("object")
            writer.key("title")
            writer.value(collection.title)
            writer.key("properties")
            writer.object { writer in
                for queryable in collection.queryables { queryable.write(to: &writer) }
            }
            writer.key("additionalProperties")
            writer.value(false)
        }
        var response = writer.response()
        response.headers[.contentType] = OGCTerms.schemaType
        return response
    }

    /// `GET /ogc/collections/{collectionId}/schema`: the JSON Schema of the collection's features,
    /// so that clients type their fields from it rather than guess from a first page whose values
    /// may all be `null` (GDAL reads it through the collection's `describedBy` link). A property
    /// that may be `null` has its type alone, the form GDAL 3.6 reads.
    @Sendable func schema(_ request: Request, context: AppRequestContext) async throws -> Response {
        let collection = try OGCCollection.named(context.parameters.get("collectionId"))
        var reader = QueryReader(request)
        _ = Self.readFormat(&reader)
        try reader.validate()
        var writer = JSONWriter(capacity: 2048)
        writer.object { writer in
            writer.key("$schema")
            writer.value("https://json-schema.org/draft/2020-12/schema")
            writer.key("$id")
            writer.value(base(request, context) + "/ogc/collections/\(collection.rawValue)/schema")
            writer.key("title")
            writer.value(collection.title)
            writer.key("type")
            writer.value("object")
            writer.key("required")
            writer.array { writer in
                for name in ["type", "id", "geometry", "properties"] { writer.value(name) }
            }
            writer.key("properties")
            writer.object { writer in
                writer.key("type")
                writer.object { writer in
                    writer.key("type")
                    writer.value("string")
                    writer.key("enum")
                    writer.array { writer in writer.value("Feature") }
                }
                writer.key("id")
                writer.object { writer in
                    writer.key("type")
                    writer.value("integer")
                }
                writer.key("geometry")
                writer.object { writer in
                    writer.key("$ref")
                    writer.value("https://geojson.org/schema/Point.json")
                }
                writer.key("properties")
                writer.object { writer in
                    writer.key("type")
                    writer.value("object")
                    writer.key("properties")
                    writer.object { writer in
                        for property in collection.properties { property.write(to: &writer) }
                    }
                }
            }
        }
        var response = writer.response()
        response.headers[.contentType] = OGCTerms.schemaType
        return response
    }
}

extension OGCCollection.Property {
    /// `"name": {"type": …, "format": …, "items": {"type": …}}`.
    func write(to writer: inout JSONWriter) {
        writer.key(name)
        writer.object { writer in
            writer.key("type")
            writer.value("\(type)")
            if let format {
                writer.key("format")
                writer.value("\(format)")
            }
            if let items {
                writer.key("items")
                writer.object { writer in
                    writer.key("type")
                    writer.value("\(items)")
                }
            }
        }
    }
}

extension OGCCollection.Queryable {
    /// `"name": {"title": …, "type": …, "minimum": …, "maximum": …}`.
    func write(to writer: inout JSONWriter) {
        writer.key(name)
        writer.object { writer in
            writer.key("title")
            writer.value("\(title)")
            writer.key("type")
            writer.value("\(type)")
            if let range {
                writer.key("minimum")
                writer.value(range.lowerBound)
                if range.upperBound < Int.max {
                    writer.key("maximum")
                    writer.value(range.upperBound)
                }
            }
        }
    }
}
