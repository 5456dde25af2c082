/// A stored photo as the API shows it (`Photo` in the contract).
public struct Photo: Sendable, Equatable {
    public var id: Int64
    /// Width and height of the stored full-size image.
    public var width: Int
    public var height: Int
    /// The name its images are stored under in an object store (`PhotoObjectKey`); `nil` for a
    /// photo written to the photo folder, whose files are named by its id.
    public var objectKey: String?

    /// A stored photo (storage engines build these).
    public init(id: Int64, width: Int, height: Int, objectKey: String? = nil) {
        self.id = id
        self.width = width
        self.height = height
        self.objectKey = objectKey
    }

    public var url: String { PhotoURL.full(id) }
    public var thumbnailUrl: String { PhotoURL.thumbnail(id) }
}

/// Where photos are served. Root-relative: clients resolve them against the API's base URL.
public enum PhotoURL {
    public static func full(_ id: Int64) -> String { "/v1/photos/\(id).jpg" }
    public static func thumbnail(_ id: Int64) -> String { "/v1/photos/\(id)/thumbnail.jpg" }

    /// The photo id in a URL of `full` or `thumbnail`, or `nil`.
    package static func photoID(ofURL url: String) -> Int64? {
        guard url.hasPrefix("/v1/photos/") else { return nil }
        let rest = url.dropFirst("/v1/photos/".count)
        let digits = rest.prefix { $0.isNumber }
        guard rest.dropFirst(digits.count) == ".jpg" || rest.dropFirst(digits.count) == "/thumbnail.jpg" else {
            return nil
        }
        return Int64(digits).flatMap { $0 > 0 ? $0 : nil }
    }
}
