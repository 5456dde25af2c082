import BurgerMapCore
import Foundation

/// How photo URLs reach clients (`--photo-urls`, for an object store; the folder always streams).
///
/// - `proxy`: Photo objects hold the root-relative `/v1/photos/…` URLs and the service streams
///   the images, with the same `ETag`, `304` and cache lifetime as from the folder.
/// - `redirect`: the same URLs; `/v1/photos/…` answers `302` to a presigned URL of the store,
///   valid `ttl` seconds.
/// - `public:BASE`: Photo objects hold `BASE` + the object's name (a CDN or a public bucket that
///   maps `BASE` to the bucket's root); `/v1/photos/…` answers `302` there, because the
///   LookForRealBurger app builds those paths itself. Avatars and covers (`avatar_url`,
///   `cover_photo_url`) keep `/v1/photos/…`, which redirects the same way.
public enum PhotoLinks: Sendable, Equatable {
    case proxy
    case redirect(ttl: Int)
    case publicBase(String)

    /// The folder's and `proxy`'s behaviour.
    public static let service = PhotoLinks.proxy

    /// The longest presigned URL SigV4 allows: 7 days.
    public static let maximumTTL = 604_800

    /// Parses `proxy`, `redirect` or `public:https://…/` (an absolute http(s) URL, ending in `/`
    /// added when missing); `ttl` is `--photo-url-ttl`.
    public init?(argument: String, ttl: Int) {
        switch argument {
        case "proxy": self = .proxy
        case "redirect":
            guard (1...Self.maximumTTL).contains(ttl) else { return nil }
            self = .redirect(ttl: ttl)
        default:
            guard argument.hasPrefix("public:") else { return nil }
            var base = String(argument.dropFirst("public:".count))
            guard let url = URL(string: base), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host?.isEmpty == false, url.query == nil, url.fragment == nil
            else { return nil }
            if !base.hasSuffix("/") { base += "/" }
            self = .publicBase(base)
        }
    }
}

/// The absolute URLs of Photo objects in `public:` mode, bound for the length of each request
/// by `PublicPhotoLinksMiddleware` (a task-local value: the JSON of a review is written far from
/// any configuration, and the other modes pay nothing for it).
struct PublicPhotoURLs: Sendable {
    /// `BASE` of `public:BASE`, ending in `/`.
    let base: String
    /// The bucket prefix the objects lie under.
    let prefix: String

    @TaskLocal static var current: PublicPhotoURLs?

    /// The URL of one image of a photo.
    func url(photoID: Int64, objectKey: String?, thumbnail: Bool) -> String {
        let key = PhotoObjectKey.resolved(photoID: photoID, objectKey: objectKey)
        return base + PhotoObjectKey.objectName(prefix: prefix, key: key, thumbnail: thumbnail)
    }
}

extension Photo {
    /// The URL a client gets for the full-size image: root-relative, or absolute in `public:`.
    var servedURL: String {
        PublicPhotoURLs.current?.url(photoID: id, objectKey: objectKey, thumbnail: false) ?? url
    }

    /// The URL a client gets for the thumbnail.
    var servedThumbnailURL: String {
        PublicPhotoURLs.current?.url(photoID: id, objectKey: objectKey, thumbnail: true) ?? thumbnailUrl
    }
}
