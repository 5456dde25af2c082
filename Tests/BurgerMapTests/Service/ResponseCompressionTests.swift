import CompressNIO
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Response compression")
struct ResponseCompressionTests {
    /// 200 places in one viewport: about 40 KB of JSON.
    static func environmentWithPlaces(_ engine: StoreEngine) async throws -> TestEnvironment {
        let environment = try await TestEnvironment(engine)
        try await environment.insert(
            (0..<200).map {
                PlaceDraft(
                    name: "Burger \($0)", lat: 37.5 + Double($0 % 20) * 0.001, lng: 127 + Double($0 / 20) * 0.001)
            })
        return environment
    }

    static let viewport = "/v1/places?bbox=126.9,37.4,127.1,37.6&limit=500"

    static func get(
        _ client: some TestClientProtocol, _ uri: String, acceptEncoding: String?, method: HTTPRequest.Method = .get
    ) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let acceptEncoding { headers[.acceptEncoding] = acceptEncoding }
        return try await client.execute(uri: uri, method: method, headers: headers)
    }

    static func decompress(_ body: ByteBuffer, _ algorithm: ZlibAlgorithm) throws -> ByteBuffer {
        var compressed = body
        return try compressed.decompress(with: algorithm, maxSize: 16 << 20)
    }

    static func varies(_ response: TestResponse) -> Bool {
        response.headers[values: .vary].joined(separator: ",").lowercased().contains("accept-encoding")
    }

    @Test(
        "gzip and deflate answers decompress to the identity answer's bytes, in a quarter of them or less",
        arguments: StoreEngine.available)
    func gzipAndDeflate(engine: StoreEngine) async throws {
        let environment = try await Self.environmentWithPlaces(engine)
        try await environment.withClient { client in
            let plain = try await Self.get(client, Self.viewport, acceptEncoding: nil)
            #expect(plain.status == .ok)
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(Self.varies(plain))
            #expect(try (json(plain)["items"] as? [Any])?.count == 200)
            for (name, algorithm) in [("gzip", ZlibAlgorithm.gzip), ("deflate", .zlib)] {
                let response = try await Self.get(client, Self.viewport, acceptEncoding: "\(name), br")
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == name)
                #expect(response.headers[.contentLength] == nil)
                #expect(response.headers[.contentType] == plain.headers[.contentType])
                #expect(Self.varies(response))
                #expect(response.body.readableBytes * 4 <= plain.body.readableBytes, "\(name)")
                #expect(try Self.decompress(response.body, algorithm) == plain.body, "\(name)")
            }
        }
    }

    @Test("Vary gets Accept-Encoding or Accept-Language once: not when it names it in any case or spacing, or is *")
    func varyAddedOnce() {
        func vary(_ values: [String], adding name: String = "Accept-Encoding") -> [String] {
            var headers = HTTPFields()
            for value in values { headers.append(HTTPField(name: .vary, value: value)) }
            headers.addVary(name)
            return headers[values: .vary]
        }
        #expect(vary([]) == ["Accept-Encoding"])
        #expect(vary(["Accept"]) == ["Accept", "Accept-Encoding"])
        #expect(vary(["Accept-Encodings, Accept-Encodin"]) == ["Accept-Encodings, Accept-Encodin", "Accept-Encoding"])
        #expect(vary(["Accept ,\tACCEPT-encoding\t, Origin"]) == ["Accept ,\tACCEPT-encoding\t, Origin"])
        #expect(
            vary(["Accept-Language", "Origin,  accept-encoding"]) == ["Accept-Language", "Origin,  accept-encoding"])
        #expect(vary(["Origin, *"]) == ["Origin, *"])
        #expect(
            vary(["Accept, Accept-Encoding"], adding: "Accept-Language") == [
                "Accept, Accept-Encoding", "Accept-Language",
            ])
        #expect(vary(["Accept-Languages"], adding: "Accept-Language") == ["Accept-Languages", "Accept-Language"])
        #expect(vary(["Accept,  ACCEPT-LANGUAGE"], adding: "Accept-Language") == ["Accept,  ACCEPT-LANGUAGE"])
    }

    @Test("text, JSON and YAML media types are compressible in any case, with parameters and spaces")
    func compressibleTypes() {
        for type in [
            "application/json; charset=utf-8", " TEXT/HTML ", "application/problem+json", "Application/GEO+JSON",
            "application/yaml; charset=utf-8", "text/plain;charset=utf-8", "application/vnd.x+yaml",
        ] {
            #expect(ResponseCompressionMiddleware<AppRequestContext>.isCompressible(mediaType: type), "\(type)")
        }
        for type in ["image/jpeg", "application/zip", "application/jsonx", "json", "", ";text/plain", "texts"] {
            #expect(!ResponseCompressionMiddleware<AppRequestContext>.isCompressible(mediaType: type), "\(type)")
        }
    }

    @Test(
        "q-values choose the coding; q=0 refuses one; identity and * are understood", arguments: StoreEngine.available)
    func qualityValues(engine: StoreEngine) async throws {
        let environment = try await Self.environmentWithPlaces(engine)
        try await environment.withClient { client in
            let cases: [(String, String?)] = [
                ("gzip;q=0", nil), ("identity", nil), ("gzip;q=0, deflate", "deflate"), ("*", "gzip"),
                ("deflate;q=0.8, gzip;q=0.5", "deflate"), ("GZIP ; Q=0.3", "gzip"), ("gzip;q=0.5, identity", nil),
                ("*;q=0", nil), ("identity;q=0, gzip;q=0.1", "gzip"), ("br, zstd", nil), ("x-gzip", "gzip"),
                ("gzip;q=2", nil), ("gzip;q=abc", nil), ("", nil),
            ]
            for (header, expected) in cases {
                let response = try await Self.get(client, Self.viewport, acceptEncoding: header)
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == expected, "Accept-Encoding: \(header)")
                #expect(Self.varies(response))
            }
        }
    }

    @Test("an Accept-Encoding of thousands of entries is read up to its 32nd entry", arguments: StoreEngine.available)
    func boundedEntries(engine: StoreEngine) async throws {
        let environment = try await Self.environmentWithPlaces(engine)
        try await environment.withClient { client in
            let late = Array(repeating: "br", count: AcceptEncoding.maximumEntries).joined(separator: ", ") + ", gzip"
            let ignored = try await Self.get(client, Self.viewport, acceptEncoding: late)
            #expect(ignored.headers[.contentEncoding] == nil)
            let huge = Array(repeating: "br;q=0.1", count: 5000).joined(separator: ",")
            let bounded = try await Self.get(client, Self.viewport, acceptEncoding: "gzip," + huge)
            #expect(bounded.headers[.contentEncoding] == "gzip")
        }
    }

    @Test("answers under 1 KiB go out as they are, with Content-Length and Vary", arguments: StoreEngine.available)
    func smallAnswers(engine: StoreEngine) async throws {
        let environment = try await Self.environmentWithPlaces(engine)
        try await environment.withClient { client in
            let health = try await Self.get(client, "/health", acceptEncoding: "gzip")
            #expect(health.headers[.contentEncoding] == nil)
            #expect(health.headers[.contentLength] == "\(health.body.readableBytes)")
            #expect(Self.varies(health))
            #expect(try json(health)["status"] as? String == "ok")
            // A problem document follows the same rules: this one is a few hundred bytes.
            let missing = try await Self.get(client, "/v1/places/999999", acceptEncoding: "gzip")
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentEncoding] == nil)
            #expect(try problemCode(missing) == "not_found")
            #expect(missing.headers[values: .vary].contains("Accept-Language"))
            #expect(Self.varies(missing))
        }
    }

    @Test("the OpenAPI document (YAML) is compressed", arguments: StoreEngine.available)
    func yaml(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let plain = try await Self.get(client, "/openapi.yaml", acceptEncoding: nil)
            let response = try await Self.get(client, "/openapi.yaml", acceptEncoding: "gzip")
            #expect(response.headers[.contentEncoding] == "gzip")
            #expect(try Self.decompress(response.body, .gzip) == plain.body)
            #expect(String(buffer: plain.body).hasPrefix("openapi: 3.1"))
        }
    }

    @Test("HEAD answers with the headers of its GET, compressed or not", arguments: StoreEngine.available)
    func head(engine: StoreEngine) async throws {
        let environment = try await Self.environmentWithPlaces(engine)
        try await environment.withClient { client in
            for encoding in ["gzip", "identity"] {
                let get = try await Self.get(client, Self.viewport, acceptEncoding: encoding)
                let head = try await Self.get(client, Self.viewport, acceptEncoding: encoding, method: .head)
                #expect(head.status == .ok)
                #expect(head.body.readableBytes == 0)
                for name in [HTTPField.Name.contentEncoding, .contentType, .vary] {
                    #expect(head.headers[values: name] == get.headers[values: name], "\(encoding) \(name)")
                }
                // The GET's length, which a compressed GET sends chunked instead of announcing.
                #expect(head.headers[.contentLength] == "\(get.body.readableBytes)", "\(encoding)")
            }
            let small = try await Self.get(client, "/health", acceptEncoding: "gzip", method: .head)
            let smallGet = try await Self.get(client, "/health", acceptEncoding: "gzip")
            #expect(small.headers[.contentEncoding] == nil)
            #expect(small.headers[.contentLength] == "\(smallGet.body.readableBytes)")
        }
    }

    @Test("photos are never compressed and do not vary by Accept-Encoding", arguments: StoreEngine.available)
    func photos(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let member = try await client.member("photographer")
            let place = try await client.addPlace("Photo Burger", token: member.token)
            let review = try json(
                try await client.postReview(
                    place: place, photos: [TestImages.noisyJPEG(width: 800, height: 600)], token: member.token))
            let photo = try #require((review["photos"] as? [[String: Any]])?.first)
            for key in ["url", "thumbnail_url"] {
                let url = try #require(photo[key] as? String)
                let path = try #require(URL(string: url)?.path)
                let response = try await Self.get(client, path, acceptEncoding: "gzip, deflate")
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.contentEncoding] == nil)
                #expect(!Self.varies(response))
                #expect(response.headers[.contentLength] == "\(response.body.readableBytes)")
                #expect(response.body.getBytes(at: 0, length: 2) == [0xFF, 0xD8])
            }
        }
    }
}
