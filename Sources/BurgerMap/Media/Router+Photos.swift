import BurgerMapCore
import Foundation
import Hummingbird

extension Router where Context == AppRequestContext {
    /// `/v1/photos`: files streamed from the folder, or objects of a bucket in the mode of
    /// `--photo-urls`.
    func addPhotoRoutes(_ media: MediaServices, rows: any PhotoStore) {
        if let bucket = media.storage as? PhotoBucket {
            addRoutes(
                PhotoObjectsController(bucket: bucket, rows: rows, links: media.links, now: { Date() }).endpoints,
                atPath: "/v1/photos")
        } else if let folder = media.storage as? PhotoFolder {
            addRoutes(PhotosController(storage: folder, fileIO: FileIO()).endpoints, atPath: "/v1/photos")
        }
    }
}

extension MediaServices {
    /// The absolute URLs Photo objects hold, in `public:` mode on a bucket.
    var publicPhotoURLs: PublicPhotoURLs? {
        guard case .publicBase(let base) = links, let bucket = storage as? PhotoBucket else { return nil }
        return PublicPhotoURLs(base: base, prefix: bucket.prefix)
    }
}

/// Binds the `public:` photo URLs for the length of each request (`PublicPhotoURLs`); added
/// only in that mode, so the others pay nothing.
struct PublicPhotoLinksMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let links: PublicPhotoURLs

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try await PublicPhotoURLs.$current.withValue(links) { try await next(request, context) }
    }
}
