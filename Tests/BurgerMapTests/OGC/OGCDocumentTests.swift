import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("OGC API – Features: landing page, conformance, collections")
struct OGCDocumentTests {
    @Test(
        "the landing page links the API description, the conformance and the collections",
        arguments: StoreEngine.available)
    func landing(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(
                uri: "/ogc", method: .get, headers: [HTTPField.Name("Host")!: "maps.example.org:8443"])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let body = try json(response)
            #expect(body["title"] as? String == "BurgerMap")
            #expect((body["description"] as? String)?.isEmpty == false)
            let links = try #require(body["links"] as? [[String: Any]])
            let byRel = Dictionary(uniqueKeysWithValues: links.map { ($0["rel"] as! String, $0) })
            #expect(Set(byRel.keys) == ["self", "service-desc", "conformance", "data"])
            #expect(byRel["self"]?["href"] as? String == "http://maps.example.org:8443/ogc")
            #expect(byRel["service-desc"]?["href"] as? String == "http://maps.example.org:8443/ogc/api")
            #expect(byRel["service-desc"]?["type"] as? String == "application/vnd.oai.openapi+json;version=3.0")
            #expect(byRel["conformance"]?["href"] as? String == "http://maps.example.org:8443/ogc/conformance")
            #expect(byRel["data"]?["href"] as? String == "http://maps.example.org:8443/ogc/collections")

            let conformance = try await client.execute(uri: "/ogc/conformance", method: .get)
            #expect(conformance.status == .ok)
            let classes = try #require(try json(conformance)["conformsTo"] as? [String])
            #expect(
                Set(classes) == [
                    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
                    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
                    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
                    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
                    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
                ])

            let api = try await client.execute(uri: "/ogc/api", method: .get)
            #expect(api.status == .ok)
            #expect(api.headers[.contentType] == "application/vnd.oai.openapi+json;version=3.0")
            let document = try json(api)
            #expect((document["openapi"] as? String)?.hasPrefix("3.0.") == true)
            let paths = try #require(document["paths"] as? [String: Any])
            for collection in ["places", "reviews"] {
                #expect(paths["/collections/\(collection)/items"] != nil)
                #expect(paths["/collections/\(collection)/items/{featureId}"] != nil)
            }
        }
    }

    @Test(
        "both collections: CRS84 world extent, feature items, links to items and queryables",
        arguments: StoreEngine.available)
    func collections(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let response = try await client.execute(uri: "/ogc/collections?f=json", method: .get)
            #expect(response.status == .ok)
            let collections = try #require(try json(response)["collections"] as? [[String: Any]])
            #expect(collections.compactMap { $0["id"] as? String } == ["places", "reviews"])
            for collection in collections {
                let id = try #require(collection["id"] as? String)
                #expect(collection["itemType"] as? String == "feature")
                let spatial = (collection["extent"] as? [String: Any])?["spatial"] as? [String: Any]
                #expect((spatial?["bbox"] as? [[Double]]) == [[-180, -90, 180, 90]])
                #expect(spatial?["crs"] as? String == "http://www.opengis.net/def/crs/OGC/1.3/CRS84")
                let links = try #require(collection["links"] as? [[String: Any]])
                let items = links.first { $0["rel"] as? String == "items" }
                #expect(items?["href"] as? String == "http://localhost/ogc/collections/\(id)/items")
                #expect(items?["type"] as? String == "application/geo+json")
                let queryables = links.first {
                    $0["rel"] as? String == "http://www.opengis.net/def/rel/ogc/1.0/queryables"
                }
                #expect(queryables?["href"] as? String == "http://localhost/ogc/collections/\(id)/queryables")
                let schema = links.first { ($0["rel"] as? String)?.lowercased() == "describedby" }
                #expect(schema?["href"] as? String == "http://localhost/ogc/collections/\(id)/schema")

                let single = try await client.execute(uri: "/ogc/collections/\(id)", method: .get)
                #expect(single.status == .ok)
                #expect(try json(single)["id"] as? String == id)
            }
        }
    }

    @Test("queryables are a JSON Schema of the filterable properties", arguments: StoreEngine.available)
    func queryables(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            for (collection, names) in [("places", ["category", "source"]), ("reviews", ["place_id", "rating"])] {
                let response = try await client.execute(uri: "/ogc/collections/\(collection)/queryables", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/schema+json")
                let schema = try json(response)
                #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
                #expect(schema["$id"] as? String == "http://localhost/ogc/collections/\(collection)/queryables")
                #expect(schema["type"] as? String == "object")
                let properties = try #require(schema["properties"] as? [String: [String: Any]])
                #expect(Set(properties.keys) == Set(names))
            }
            // The features' schema types every property, whatever the values of a first page.
            let response = try await client.execute(uri: "/ogc/collections/places/schema", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/schema+json")
            let schema = try json(response)
            let feature = try #require(schema["properties"] as? [String: Any])
            let properties = try #require(
                (feature["properties"] as? [String: Any])?["properties"] as? [String: [String: Any]])
            #expect(properties["rating_avg"]?["type"] as? String == "number")
            #expect(properties["review_count"]?["type"] as? String == "integer")
            #expect(properties["created_at"]?["format"] as? String == "date-time")
        }
    }

    @Test("an unknown collection is 404 on every route of a collection", arguments: StoreEngine.available)
    func unknownCollection(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            for uri in [
                "/ogc/collections/burgers", "/ogc/collections/burgers/items", "/ogc/collections/burgers/items/1",
                "/ogc/collections/burgers/queryables", "/ogc/collections/burgers/schema",
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
                #expect(try ogcProblem(response).code == "not_found", "\(uri)")
            }
            let wrongFormat = try await client.execute(uri: "/ogc?f=html", method: .get)
            #expect(wrongFormat.status == .badRequest)
            #expect(try ogcProblem(wrongFormat).fields == ["f"])
        }
    }
}
