/// A review as the API shows it (`Review` in the contract).
public struct Review: Sendable, Equatable {
    /// The place a review is about, as much of it as a review shows.
    public struct PlaceSummary: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var lat: Double
        public var lng: Double

        /// A place summary (storage engines build these).
        public init(id: Int64, name: String, lat: Double, lng: Double) {
            self.id = id
            self.name = name
            self.lat = lat
            self.lng = lng
        }
    }

    public var id: Int64
    public var place: PlaceSummary
    public var author: User
    public var rating: Int
    /// A short headline, optional (the LookForRealBurger app asks for one with every review).
    public var title: String?
    public var text: String
    public var photos: [Photo]
    public var likeCount: Int
    public var bookmarkCount: Int
    public var commentCount: Int
    /// Viewer fields: `false` without a viewer.
    public var likedByMe: Bool
    public var bookmarkedByMe: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    /// A review with every field (storage engines build these).
    public init(
        id: Int64, place: PlaceSummary, author: User, rating: Int, title: String? = nil, text: String,
        photos: [Photo], likeCount: Int, bookmarkCount: Int, commentCount: Int, likedByMe: Bool, bookmarkedByMe: Bool,
        createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.place = place
        self.author = author
        self.rating = rating
        self.title = title
        self.text = text
        self.photos = photos
        self.likeCount = likeCount
        self.bookmarkCount = bookmarkCount
        self.commentCount = commentCount
        self.likedByMe = likedByMe
        self.bookmarkedByMe = bookmarkedByMe
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The keyset position of this review in a newest-first list.
    public var listKey: TimeKey { TimeKey(time: createdAt, id: id) }
}

/// Which reviews a list shows.
public enum ReviewListScope: Sendable, Hashable {
    case all
    case place(Int64)
    case author(Int64)

    /// The name cursors are signed with, so that a cursor of one list is refused by another.
    package var cursorScope: String {
        switch self {
        case .all: "reviews"
        case .place(let id): "place-reviews|\(id)"
        case .author(let id): "user-reviews|\(id)"
        }
    }
}

/// What a client sends to create a review (the photos travel separately).
public struct ReviewDraft: Sendable {
    public var placeID: Int64
    public var authorID: Int64
    public var rating: Int
    public var title: String?
    public var text: String
    /// Photos the author uploaded before the review (`PhotoStore.addPendingPhotos`), attached
    /// after the review's own photos, in this order. Each must be the author's, pending, and
    /// younger than `PendingPhotos.lifetime`; else nothing is stored (`photosUnavailable`).
    public var pendingPhotoIDs: [Int64]

    public init(
        placeID: Int64, authorID: Int64, rating: Int, title: String? = nil, text: String,
        pendingPhotoIDs: [Int64] = []
    ) {
        self.placeID = placeID
        self.authorID = authorID
        self.rating = rating
        self.title = title
        self.text = text
        self.pendingPhotoIDs = pendingPhotoIDs
    }
}
