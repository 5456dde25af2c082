import Foundation
import HTTPTypes
import Hummingbird

/// `GET`/`HEAD /v1/photos/{id}.jpg` and `/v1/photos/{id}/thumbnail.jpg`: stored photos, streamed
/// from disk with a strong ETag and a year-long immutable cache lifetime.
///
/// The database is not read: a photo's files exist exactly while its row does (they are renamed
/// into place inside the row's transaction and removed with it), and a photo id is never reused.
struct PhotosController {
    let storage: PhotoStorage
    let fileIO: FileIO

    /// The routes this controller serves.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("{id}.jpg") { request, context in try await serve(request, context, thumbnail: false) }
        routes.head("{id}.jpg") { request, context in try await serve(request, context, thumbnail: false) }
        routes.get(":id/thumbnail.jpg") { request, context in try await serve(request, context, thumbnail: true) }
        routes.head(":id/thumbnail.jpg") { request, context in try await serve(request, context, thumbnail: true) }
        return routes
    }

    static let cacheControl = "public, max-age=31536000, immutable"

    /// One photo file: `304` when the client's `If-None-Match` holds its ETag, headers only for `HEAD`.
    @Sendable func serve(_ request: Request, _ context: AppRequestContext, thumbnail: Bool) async throws -> Response {
        let id = try context.parameters.resourceID(.photoNotFound)
        let path = storage.path(photoID: id, thumbnail: thumbnail)
        var status = stat()
        guard stat(path, &status) == 0, status.st_size > 0 else { throw Problem.notFound(.photoNotFound, id: id) }
        // Files are never rewritten in place, so inode, size and modification time name the bytes.
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        let etag =
            "\"\(String(status.st_ino, radix: 16))-\(String(status.st_size, radix: 16))-\(String(modified, radix: 16))\""
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
        do {
            body = try await fileIO.loadFile(path: path, range: 0...Int(status.st_size - 1), context: context)
        } catch {
            throw Problem.notFound(.photoNotFound, id: id)
        }
        return Response(status: .ok, headers: headers, body: body)
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
