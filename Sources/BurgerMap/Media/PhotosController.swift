import BurgerMapCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// `GET`/`HEAD /v1/photos/{id}.jpg` and `/v1/photos/{id}/thumbnail.jpg`: stored photos, streamed
/// from disk with a strong ETag and a year-long immutable cache lifetime.
///
/// The database is not read: a photo's files get their final names only once its row has
/// committed (`PhotoStorage`) and are removed with it, and a photo id is never reused. The ETag
/// is derived from the file's bytes (the first 128 bits of their SHA-256), so every instance that
/// shares the photo folder answers the same one, and no two contents ever share one; it is
/// computed once per file and process (`PhotoETags`).
struct PhotosController {
    let storage: PhotoFolder
    let fileIO: FileIO
    /// The ETag of each file already read: hashed once per process.
    let etags = PhotoMemory<String>()

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> { Self.routes(serve) }

    /// `GET` and `HEAD` of a photo's two images under `/v1/photos`, answered by `serve` (with
    /// whether the thumbnail is asked for), whichever store holds them.
    static func routes(
        _ serve: @escaping @Sendable (Request, AppRequestContext, _ thumbnail: Bool) async throws -> Response
    ) -> RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("{id}.jpg") { request, context in try await serve(request, context, false) }
        routes.head("{id}.jpg") { request, context in try await serve(request, context, false) }
        routes.get(":id/thumbnail.jpg") { request, context in try await serve(request, context, true) }
        routes.head(":id/thumbnail.jpg") { request, context in try await serve(request, context, true) }
        return routes
    }

    static let cacheControl = "public, max-age=31536000, immutable"

    /// One photo file: `304` when the client's `If-None-Match` holds its ETag, headers only for `HEAD`.
    @Sendable func serve(_ request: Request, _ context: AppRequestContext, thumbnail: Bool) async throws -> Response {
        let id = try context.parameters.resourceID(.photoNotFound)
        let path = storage.path(photoID: id, thumbnail: thumbnail)
        var status = stat()
        guard stat(path, &status) == 0, status.st_size > 0 else { throw Problem.notFound(.photoNotFound, id: id) }
        // A file whose ETag is not known yet is read whole, once: its bytes give the ETag and
        // are the answer, whatever their size.
        var inPlace: ByteBuffer? = nil
        let etag: String
        if let known = etags.value(photoID: id, thumbnail: thumbnail) {
            etag = known
        } else {
            guard let bytes = Self.read(path, size: Int(status.st_size)) else {
                throw Problem.notFound(.photoNotFound, id: id)
            }
            etag = Self.etag(of: bytes)
            etags.remember(etag, photoID: id, thumbnail: thumbnail)
            inPlace = bytes
        }
        var headers: HTTPFields = [
            .contentType: "image/jpeg", .eTag: etag, .cacheControl: Self.cacheControl,
        ]
        if let ifNoneMatch = request.headers[.ifNoneMatch], Self.matches(ifNoneMatch, etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(status.st_size)
        if request.method == .head {
            return Response(status: .ok, headers: headers)
        }
        let body: ResponseBody
        if let inPlace {
            body = ResponseBody(byteBuffer: inPlace)
        } else if status.st_size <= Self.readInPlaceLimit {
            guard let bytes = Self.read(path, size: Int(status.st_size)) else {
                throw Problem.notFound(.photoNotFound, id: id)
            }
            body = ResponseBody(byteBuffer: bytes)
        } else {
            do {
                body = try await fileIO.loadFile(path: path, range: 0...Int(status.st_size - 1), context: context)
            } catch {
                throw Problem.notFound(.photoNotFound, id: id)
            }
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Files up to this size (thumbnails, small photos) are read where the request runs, as the
    /// `stat` before is: `FileIO`'s hop to its thread pool and back cost more than reading a
    /// thumbnail from the page cache (docs/performance/http-path.md "The HTTP path against a bare route"). Larger files
    /// stream from the pool.
    static let readInPlaceLimit = 64 * 1024

    /// The whole file at `path`, `size` bytes; `nil` when it cannot be opened or is shorter
    /// (removed with its photo meanwhile).
    static func read(_ path: String, size: Int) -> ByteBuffer? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        while buffer.readableBytes < size {
            let wanted = size - buffer.readableBytes
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { pointer in
                max(Foundation.read(descriptor, pointer.baseAddress, wanted), 0)
            }
            if count == 0 { return nil }
        }
        return buffer
    }

    /// The strong ETag of a photo file's bytes: the first 128 bits of their SHA-256, in hex.
    static func etag(of bytes: ByteBuffer) -> String {
        let digest = bytes.withUnsafeReadableBytes { SHA256.hash(data: $0) }
        return "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// Whether an `If-None-Match` list names `etag` (`*` matches anything; `W/` is ignored, as
    /// RFC 9110 asks for this header).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
