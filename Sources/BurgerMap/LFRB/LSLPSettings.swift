import BurgerMapCore

/// The LookForRealBurger app's routes ("LSLP", after the generic backend the app was built
/// against): on only when a key is configured (`burgermap serve --lslp-key`), and the product
/// ids that tell its restaurant posts from its review posts.
public struct LSLPSettings: Sendable {
    /// The `SesacKey` header every request of the app carries.
    public var key: String
    /// Product ids whose posts are places. The first is the one posts are answered with.
    public var restaurantProducts: [String]
    /// Product ids whose posts are reviews. The first is the one posts are answered with.
    public var reviewProducts: [String]

    /// The app's four values: it writes and reads the `_TEST` ones; the others are in its code too.
    public static let defaultRestaurantProducts = ["LFRB_BURGER_HOUSE_TEST", "LFRB_BURGER_HOUSE"]
    public static let defaultReviewProducts = ["LFRB_BURGER_HOUSE_REVIEW_TEST", "LFRB_BURGER_HOUSE_REVIEW"]

    /// The `source` of the places the app adds: their `content5` (the app's own place id, from
    /// Kakao's local search) is their `external_id`, so adding one twice answers the first.
    public static let placeSource = "lslp"

    /// The most items one list answers: the app's map load asks for 300,000 restaurants at once
    /// (written as they are read, `LSLPMapLoad`); review lists keep the native 100.
    public static let maximumPlaceLimit = 1_000_000
    public static let maximumReviewLimit = 100
    /// The most ids one post or profile lists in `likes`, `likes2`, `comments`, `followers`,
    /// `following` and `posts`: the app shows their counts, so the lists are whole up to here.
    public static let maximumEmbedded = 1_000
    /// The most comments a review post embeds: its newest (the app shows the post's `comments`
    /// as the comment screen, newest first).
    public static let maximumEmbeddedComments = 100

    public init(
        key: String, restaurantProducts: [String] = Self.defaultRestaurantProducts,
        reviewProducts: [String] = Self.defaultReviewProducts
    ) {
        self.key = key
        self.restaurantProducts = restaurantProducts
        self.reviewProducts = reviewProducts
    }

    /// What a `product_id` names.
    func kind(ofProduct product: String) -> PostKind? {
        if restaurantProducts.contains(product) { return .restaurant }
        if reviewProducts.contains(product) { return .review }
        return nil
    }

    /// The product id a post of `kind` is answered with.
    func product(of kind: PostKind) -> String {
        switch kind {
        case .restaurant: restaurantProducts.first ?? Self.defaultRestaurantProducts[0]
        case .review: reviewProducts.first ?? Self.defaultReviewProducts[0]
        }
    }
}

/// The two kinds of the app's posts.
enum PostKind: Sendable {
    case restaurant
    case review
}

/// A post id as the app sees it: `place-12` or `review-34` (the app treats ids as opaque
/// strings; the prefix keeps places and reviews, two id spaces, apart).
enum PostID: Sendable, Equatable {
    case place(Int64)
    case review(Int64)

    init?(_ text: String) {
        if text.hasPrefix("place-"), let id = Int64(text.dropFirst(6)), id > 0 {
            self = .place(id)
        } else if text.hasPrefix("review-"), let id = Int64(text.dropFirst(7)), id > 0 {
            self = .review(id)
        } else {
            return nil
        }
    }

    var text: String {
        switch self {
        case .place(let id): "place-\(id)"
        case .review(let id): "review-\(id)"
        }
    }
}

/// The path the app is given for a photo: it fetches `<base>v1/<path>`, which is the native
/// photo route (`/v1/photos/{id}.jpg`), so the paths name the same files.
enum LSLPFilePath {
    static func path(photoID: Int64) -> String { "photos/\(photoID).jpg" }

    /// The photo id of a path this service handed out, or `nil`.
    static func photoID(_ path: String) -> Int64? {
        guard path.hasPrefix("photos/"), path.hasSuffix(".jpg") else { return nil }
        guard let id = Int64(path.dropFirst(7).dropLast(4)), id > 0 else { return nil }
        return id
    }
}
