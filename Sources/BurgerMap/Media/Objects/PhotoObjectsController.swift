import BurgerMapCore
import BurgerMapObjectStorage
import Foundation
import HTTPTypes
import Hummingbird

/// `GET`/`HEAD /v1/photos/{id}.jpg` and `/v1/photos/{id}/thumbnail.jpg` when the photos are in a
/// bucket, in the mode of `--photo-urls` (`PhotoLinks`):
/// - `proxy` streams the object with the folder's headers: the strong `ETag` of its bytes
///   (from the SHA-256 the object carries, so it equals the folder's), `304` for a matching
///   `If-None-Match` (answered from memory once the tag is known), a year-long immutable life;
/// - `redirect` answers `302` to a presigned URL valid the configured time `ttl`; one URL is
///   answered for `ttl / 4` and may be kept by the client as long, so it is always used well
///   within its validity (and signing it once per image and quarter of the time kept the 302 at
///   0.6 of `/health`, `scripts/bench-photo-store`);
/// - `public:` answers `302` to the public URL, which never changes for the photo.
/// A photo id with no row is `404`; the store away is `503` with `Retry-After`.
struct PhotoObjectsController {
    let bucket: PhotoBucket
    let rows: any PhotoStore
    let links: PhotoLinks
    let now: @Sendable () -> Date
    let etags = PhotoMemory<String>()
    /// The presigned URL answered last for each image, with when it was signed.
    let presigned = PhotoMemory<PresignedURL>()

    /// The routes this controller serves (the folder's table, `PhotosController.routes`).
    var endpoints: RouteCollection<AppRequestContext> { PhotosController.routes(serve) }

    /// One image, in the configured mode.
    @Sendable func serve(_ request: Request, _ context: AppRequestContext, thumbnail: Bool) async throws -> Response {
        let id = try context.parameters.resourceID(.photoNotFound)
        guard let key = try await bucket.objectKey(photoID: id, rows: rows) else {
            throw Problem.notFound(.photoNotFound, id: id)
        }
        let name = bucket.objectName(key: key, thumbnail: thumbnail)
        switch links {
        case .proxy:
            return try await proxy(request, id: id, name: name, thumbnail: thumbnail)
        case .redirect(let ttl):
            let reuse = max(ttl / 4, 1)
            let date = now()
            let url: String
            if let kept = presigned.value(photoID: id, thumbnail: thumbnail), kept.signed > date - Double(reuse) {
                url = kept.url
            } else {
                url = bucket.client.presignedURL(method: "GET", key: name, expires: ttl, at: date)
                presigned.remember(PresignedURL(url: url, signed: date), photoID: id, thumbnail: thumbnail)
            }
            return Self.redirect(to: url, cacheControl: "private, max-age=\(reuse)")
        case .publicBase(let base):
            return Self.redirect(to: base + name, cacheControl: "public, max-age=86400")
        }
    }

    /// A `302` to `url`.
    static func redirect(to url: String, cacheControl: String) -> Response {
        Response(status: .found, headers: [.location: url, .cacheControl: cacheControl])
    }

    /// The object streamed through the service.
    func proxy(_ request: Request, id: Int64, name: String, thumbnail: Bool) async throws -> Response {
        var headers: HTTPFields = [.contentType: "image/jpeg", .cacheControl: PhotosController.cacheControl]
        if let kept = bucket.images.image(photoID: id, thumbnail: thumbnail) {
            headers[.eTag] = kept.etag
            if let ifNoneMatch = request.headers[.ifNoneMatch], PhotosController.matches(ifNoneMatch, kept.etag) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentLength] = String(kept.bytes.readableBytes)
            return Response(
                status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: kept.bytes))
        }
        if let known = etags.value(photoID: id, thumbnail: thumbnail),
            let ifNoneMatch = request.headers[.ifNoneMatch], PhotosController.matches(ifNoneMatch, known)
        {
            headers[.eTag] = known
            return Response(status: .notModified, headers: headers)
        }
        if request.method == .head {
            guard let head = try await bucket.answering({ try await bucket.client.head(key: name) }) else {
                throw Problem.notFound(.photoNotFound, id: id)
            }
            let etag = Self.etag(metadata: head.metadata, storeETag: head.eTag)
            etags.remember(etag, photoID: id, thumbnail: thumbnail)
            headers[.eTag] = etag
            headers[.contentLength] = String(head.size)
            return Response(status: .ok, headers: headers)
        }
        guard let object = try await bucket.answering({ try await bucket.client.get(key: name) }) else {
            throw Problem.notFound(.photoNotFound, id: id)
        }
        let etag = Self.etag(metadata: object.metadata, storeETag: object.eTag)
        etags.remember(etag, photoID: id, thumbnail: thumbnail)
        headers[.eTag] = etag
        if let ifNoneMatch = request.headers[.ifNoneMatch], PhotosController.matches(ifNoneMatch, etag) {
            return Response(status: .notModified, headers: headers)
        }
        if let length = object.contentLength { headers[.contentLength] = String(length) }
        if let length = object.contentLength, length <= PhotoImageCache.largestImage {
            // A small image is read whole, answered and kept for the next requests.
            let bytes = try await bucket.answering { try await object.body.collect(upTo: Int(length)) }
            bucket.images.keep(bytes, etag: etag, photoID: id, thumbnail: thumbnail)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: bytes))
        }
        let body = object.body
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                for try await chunk in body { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
    }

    /// The service's strong ETag of an object: the first 128 bits of the SHA-256 it carries (as
    /// the folder's tag), else the store's own tag, quoted.
    static func etag(metadata: [String: String], storeETag: String?) -> String {
        if let hash = metadata["sha256"], hash.count == 64, hash.allSatisfy(\.isHexDigit) {
            return "\"" + hash.prefix(32).lowercased() + "\""
        }
        let tag = (storeETag ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return "\"" + tag + "\""
    }
}

/// A presigned URL and when it was signed.
struct PresignedURL: Sendable {
    var url: String
    var signed: Date
}
