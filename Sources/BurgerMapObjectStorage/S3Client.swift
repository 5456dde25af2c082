import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A small S3 client for one bucket: put, get, head, delete, one listing page and presigned URLs,
/// signed with SigV4 over async-http-client. Every request is retried on 5xx, 429, timeouts and
/// connection failures, with backoff (`S3RetryPolicy`); never on another 4xx.
///
/// Give it an `HTTPClient` made with `S3Client.httpClientConfiguration()` (or the same settings):
/// async-http-client's own connect retries would otherwise hold a request to a store that is down
/// for the whole `requestTimeout` before this client's retry policy ever sees the failure.
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    let httpClient: HTTPClient
    let retry: S3RetryPolicy
    let requestTimeout: Duration
    let now: @Sendable () -> Date
    let signer: SigV4Signer
    let logger: Logger

    public init(
        configuration: S3Configuration, httpClient: HTTPClient, retry: S3RetryPolicy = .standard,
        requestTimeout: Duration = .seconds(30), now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "burgermap.object-storage")
    ) {
        self.configuration = configuration
        self.httpClient = httpClient
        self.retry = retry
        self.requestTimeout = requestTimeout
        self.now = now
        self.signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region, service: "s3")
        self.logger = logger
        let root = Self.base(configuration)
        baseURL = root
        let url = URL(string: root + "/")!
        presignHost = SigV4Signer.hostHeader(url)
        presignPathPrefix = String(signer.canonicalURI(url).dropLast())
    }

    /// `base(configuration)`, made once.
    let baseURL: String
    /// The `host` a presigned URL signs, and the canonical URI of the bucket's root, without
    /// its last `/`.
    let presignHost: String
    let presignPathPrefix: String

    /// What the client's `HTTPClient` should use: no redirects (a signed request must not go
    /// elsewhere), a 5 s connect and 30 s read timeout, and a failed connection reported at once
    /// so that `S3RetryPolicy` decides about retrying.
    /// One client with `httpClientConfiguration()` for the whole process (its connections are
    /// pooled per store host), never shut down, like async-http-client's own `HTTPClient.shared`.
    public static let sharedHTTPClient = HTTPClient(
        eventLoopGroupProvider: .singleton, configuration: httpClientConfiguration())

    public static func httpClientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// PUT with `Content-Type`, `Cache-Control`, `Content-MD5` (the store checks the bytes it
    /// got), the body's real SHA-256 as `x-amz-content-sha256`, and `metadata` as
    /// `x-amz-meta-NAME` headers (names lowercased; values must be ASCII, as S3 requires).
    public func put(
        key: String, body: ByteBuffer, contentType: String, cacheControl: String, metadata: [String: String]
    )
        async throws
    {
        let bytes = Data(body.readableBytesView)
        var headers = [
            ("Content-Type", contentType), ("Cache-Control", cacheControl),
            ("Content-MD5", Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()),
        ]
        for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
            headers.append(("x-amz-meta-\(name.lowercased())", value))
        }
        let response = try await send(
            .PUT, objectURL(key: key), headers: headers, body: body, payloadHash: SigV4Signer.hexSHA256(bytes))
        let answer = try await response.body.collect(upTo: 64 * 1024)
        guard response.status.code == 200 else { throw failure(response, body: String(buffer: answer)) }
    }

    /// The object, its body still streaming; nil when there is no such key.
    public func get(key: String) async throws -> S3Object? {
        let response = try await send(.GET, objectURL(key: key))
        switch response.status.code {
        case 200:
            let headers = response.headers
            return S3Object(
                contentLength: headers.first(name: "Content-Length").flatMap { Int64($0) },
                contentType: headers.first(name: "Content-Type"), eTag: headers.first(name: "ETag"),
                metadata: Self.metadata(headers), body: response.body)
        default:
            let answer = String(buffer: try await response.body.collect(upTo: 64 * 1024))
            if response.status.code == 404 && S3XML.error(answer).code != "NoSuchBucket" { return nil }
            throw failure(response, body: answer)
        }
    }

    /// The object's size, type and metadata; nil when there is no such key.
    public func head(key: String) async throws -> S3Head? {
        let response = try await send(.HEAD, objectURL(key: key))
        _ = try await response.body.collect(upTo: 64 * 1024)
        switch response.status.code {
        case 200:
            let headers = response.headers
            guard let size = headers.first(name: "Content-Length").flatMap({ Int64($0) }) else {
                throw S3Error.invalidResponse("HEAD \(key) without Content-Length")
            }
            return S3Head(
                size: size, eTag: headers.first(name: "ETag"), contentType: headers.first(name: "Content-Type"),
                cacheControl: headers.first(name: "Cache-Control"), metadata: Self.metadata(headers),
                lastModified: headers.first(name: "Last-Modified").flatMap(S3Dates.http))
        case 404: return nil
        default: throw failure(response, body: "")
        }
    }

    /// Deletes the object; a key that is already gone is a success too.
    public func delete(key: String) async throws {
        let response = try await send(.DELETE, objectURL(key: key))
        let answer = String(buffer: try await response.body.collect(upTo: 64 * 1024))
        switch response.status.code {
        case 200, 204: return
        case 404 where S3XML.error(answer).code != "NoSuchBucket": return
        default: throw failure(response, body: answer)
        }
    }

    /// One ListObjectsV2 page (`maxKeys` clamped to 1…1000) of the keys under `prefix`, in S3's
    /// order (by UTF-8 bytes); `next` is the token for the following page, nil after the last.
    public func list(prefix: String, continuationToken: String?, maxKeys: Int) async throws
        -> (objects: [S3ObjectInfo], next: String?)
    {
        var query = [("list-type", "2"), ("max-keys", String(min(max(maxKeys, 1), 1000))), ("prefix", prefix)]
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let response = try await send(.GET, bucketURL(query: query))
        let answer = String(buffer: try await response.body.collect(upTo: 16 * 1024 * 1024))
        guard response.status.code == 200 else { throw failure(response, body: answer) }
        return try S3XML.listPage(answer)
    }

    /// A presigned URL for `method` on `key`, valid `expires` seconds (clamped to 1…604800, S3's
    /// limits) from `date`.
    ///
    /// Built as text, with the query already in canonical order: the same bytes as
    /// `SigV4Signer.presign` on `objectURL(key:)` (a test holds them to AWS's example), without
    /// its three parses of the URL, which made a presigned redirect cost 4 times a `/health`
    /// answer (`scripts/bench-photo-store`).
    public func presignedURL(method: String = "GET", key: String, expires: Int, at date: Date) -> String {
        let encodedKey = S3URIEncoding.encode(key)
        let timestamp = SigV4Signer.timestamp(date)
        var query: [(String, String)] = [
            ("X-Amz-Algorithm", SigV4Signer.algorithm),
            ("X-Amz-Credential", "\(configuration.credentials.accessKeyID)/\(signer.scope(date))"),
            ("X-Amz-Date", timestamp),
            ("X-Amz-Expires", String(min(max(expires, 1), 604_800))),
        ]
        if let token = configuration.credentials.sessionToken { query.append(("X-Amz-Security-Token", token)) }
        query.append(("X-Amz-SignedHeaders", "host"))
        let canonicalQuery = query.map {
            S3URIEncoding.encode($0.0, keepSlash: false) + "=" + S3URIEncoding.encode($0.1, keepSlash: false)
        }.joined(separator: "&")
        let canonicalRequest =
            method.uppercased() + "\n" + presignPathPrefix + "/" + encodedKey + "\n" + canonicalQuery + "\nhost:"
            + presignHost + "\n\nhost\nUNSIGNED-PAYLOAD"
        let signature = signer.signature(
            stringToSign: signer.stringToSign(canonicalRequest: canonicalRequest, date: date), date: date)
        return baseURL + "/" + encodedKey + "?" + canonicalQuery + "&X-Amz-Signature=" + signature
    }

    /// The object's URL: `endpoint/bucket/key` (path) or `bucket.host/key` (virtual host), the key
    /// URI-encoded as S3 signs it (each segment percent-encoded, `/` kept).
    public func objectURL(key: String) -> URL {
        URL(string: base() + "/" + S3URIEncoding.encode(key))!
    }

    /// The bucket's URL with a query (names and values encoded, in S3's canonical order).
    func bucketURL(query: [(String, String)]) -> URL {
        let root = configuration.addressing == .path ? base() : base() + "/"
        return URL(string: root + "?" + SigV4Signer.canonicalQuery(query))!
    }

    /// `scheme://host[:port][/path]/bucket` or `scheme://bucket.host[:port][/path]`.
    func base() -> String { baseURL }

    static func base(_ configuration: S3Configuration) -> String {
        let endpoint = configuration.endpoint
        let scheme = endpoint.scheme ?? "https"
        let host = endpoint.host ?? ""
        let port = endpoint.port.map { ":\($0)" } ?? ""
        var path = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        while path.hasSuffix("/") { path.removeLast() }
        switch configuration.addressing {
        case .path: return "\(scheme)://\(host)\(port)\(path)/\(configuration.bucket)"
        case .virtualHost: return "\(scheme)://\(configuration.bucket).\(host)\(port)\(path)"
        }
    }

    static func metadata(_ headers: HTTPHeaders) -> [String: String] {
        var metadata: [String: String] = [:]
        for (name, value) in headers where name.lowercased().hasPrefix("x-amz-meta-") {
            metadata[String(name.lowercased().dropFirst("x-amz-meta-".count))] = value
        }
        return metadata
    }
}
