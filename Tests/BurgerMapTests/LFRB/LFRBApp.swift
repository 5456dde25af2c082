import BurgerMap
import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

// The LookForRealBurger app's DTOs, as it decodes them: a plain `JSONDecoder` (no key strategy),
// so the property names are the JSON keys; a missing key or `null` in a non-optional field
// fails the whole screen.

struct LFRBCreator: Decodable {
    let user_id: String
    let nick: String
    let profileImage: String?
}

struct LFRBComment: Decodable {
    let comment_id: String
    let content: String
    let createdAt: String
    let creator: LFRBCreator
}

struct LFRBPost: Decodable {
    let post_id: String
    let product_id: String
    let title: String
    let price: Int?
    let content: String
    let content1: String
    let content2: String?
    let content3: String?
    let content4: String?
    let content5: String?
    let createdAt: String
    let creator: LFRBCreator
    let files: [String]
    let likes: [String]
    let likes2: [String]
    let buyers: [String]
    let hashTags: [String]
    let comments: [LFRBComment]

    /// Whether the map tab draws this restaurant post as a pin (the app's own filter).
    var isPin: Bool {
        Double(content1) != nil && content2.flatMap { Double($0) } != nil && content3 != nil && content4 != nil
            && content5 != nil
    }
}

struct LFRBPostList: Decodable {
    let data: [LFRBPost]
    let next_cursor: String
}

struct LFRBLogin: Decodable {
    let user_id: String
    let email: String
    let nick: String
    let accessToken: String
    let refreshToken: String
}

struct LFRBJoin: Decodable {
    let user_id: String
    let email: String
    let nick: String
}

struct LFRBMessage: Decodable {
    let message: String
}

struct LFRBRefresh: Decodable {
    let accessToken: String
}

struct LFRBLike: Decodable {
    let like_status: Bool
}

struct LFRBFollow: Decodable {
    let nick: String
    let opponent_nick: String
    let following_status: Bool
}

struct LFRBProfile: Decodable {
    struct Person: Decodable {
        let user_id: String
        let nick: String
        let profileImage: String?
    }
    let user_id: String
    let email: String?
    let nick: String
    let phoneNum: String?
    let birthDay: String?
    let profileImage: String?
    let followers: [Person]
    let following: [Person]
    let posts: [String]
}

struct LFRBUpload: Decodable {
    let files: [String]
}

/// The app's product ids (the `_TEST` ones, which it writes and reads).
enum LFRBProduct {
    static let restaurant = "LFRB_BURGER_HOUSE_TEST"
    static let review = "LFRB_BURGER_HOUSE_REVIEW_TEST"
}

/// One signed-in copy of the app: its requests as Moya and Alamofire send them (`SesacKey` on
/// each, the bare access token, query keys sorted and escaped, JSON through
/// `JSONSerialization` so `/` goes out as `\/`), and its decoding, status by status.
final class LFRBApp: @unchecked Sendable {
    static let key = "lfrb-test-key"
    let client: any TestClientProtocol
    var accessToken = ""
    var refreshToken = ""
    var userID = ""

    init(_ client: any TestClientProtocol) {
        self.client = client
    }

    /// An `LSLPSettings` with the key these apps send.
    static var settings: LSLPSettings { LSLPSettings(key: key) }

    /// Sends one request of the app: `path` after the base URL (`v1/…`).
    func send(
        _ method: HTTPRequest.Method, _ path: String, query: [String: String] = [:], json: [String: Any]? = nil,
        headers extra: HTTPFields = [:], key: String? = LFRBApp.key, authorized: Bool = true
    ) async throws -> TestResponse {
        var headers: HTTPFields = extra
        if let key { headers[HTTPField.Name("SesacKey")!] = key }
        if authorized { headers[.authorization] = accessToken }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        }
        return try await client.execute(
            uri: "/" + path + Self.queryString(query), method: method, headers: headers, body: body)
    }

    /// Alamofire's `URLEncoding.queryString`: keys sorted, values percent-escaped.
    static func queryString(_ query: [String: String]) -> String {
        guard !query.isEmpty else { return "" }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return "?"
            + query.keys.sorted().map { key in
                "\(key)=\(query[key]!.addingPercentEncoding(withAllowedCharacters: allowed)!)"
            }.joined(separator: "&")
    }

    /// Decodes a `200` answer as the app does; any other status fails the test.
    func decode<T: Decodable>(
        _ type: T.Type, _ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws -> T
    {
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    /// Sends a request the way the app's view models do: on `419` it refreshes and sends it again.
    func call(
        _ method: HTTPRequest.Method, _ path: String, query: [String: String] = [:], json: [String: Any]? = nil
    ) async throws -> TestResponse {
        var response = try await send(method, path, query: query, json: json)
        while response.status.code == 419 {
            let refreshed = try await refresh()
            guard refreshed.status == .ok else { return refreshed }
            accessToken = try decode(LFRBRefresh.self, refreshed).accessToken
            response = try await send(method, path, query: query, json: json)
        }
        return response
    }

    /// `GET v1/auth/refresh` with the app's headers.
    func refresh() async throws -> TestResponse {
        try await send(.get, "v1/auth/refresh", headers: [HTTPField.Name("Refresh")!: refreshToken])
    }

    /// Joins and logs in; answers the login.
    @discardableResult
    func joinAndLogIn(_ nick: String, password: String = "burger-lover-1") async throws -> LFRBLogin {
        let email = "\(nick)@example.com"
        _ = try decode(
            LFRBJoin.self,
            try await send(
                .post, "v1/users/join", json: ["email": email, "password": password, "nick": nick], authorized: false))
        return try await logIn(email: email, password: password)
    }

    @discardableResult
    func logIn(email: String, password: String) async throws -> LFRBLogin {
        let login = try decode(
            LFRBLogin.self,
            try await send(.post, "v1/users/login", json: ["email": email, "password": password], authorized: false))
        accessToken = login.accessToken
        refreshToken = login.refreshToken
        userID = login.user_id
        return login
    }

    /// `POST v1/posts/files` as Alamofire writes it: parts named `files`, `image/jpg`,
    /// `LFRB_<UUID>.jpg`, boundary `alamofire.boundary.<16 hex>`.
    func upload(_ images: [[UInt8]]) async throws -> TestResponse {
        var form = MultipartBody()
        form.boundary = "alamofire.boundary.3f2a9c0d1e4b5a67"
        for image in images {
            form.file("files", image, filename: "LFRB_\(UUID().uuidString).jpg", type: "image/jpg")
        }
        return try await client.execute(
            uri: "/v1/posts/files", method: .post,
            headers: [
                HTTPField.Name("SesacKey")!: Self.key, .authorization: accessToken,
                .contentType: "multipart/form-data; boundary=\(form.boundary)",
            ], body: ByteBuffer(bytes: form.closed))
    }

    /// The write-review screen: restaurant found by `content5` or added, photos uploaded, the
    /// review posted, then linked to its restaurant by a comment. Answers the review post.
    func writeReview(
        kakaoID: String, name: String, lng: String, lat: String, images: [[UInt8]], title: String, text: String,
        rating: Int
    ) async throws -> (review: LFRBPost, restaurantID: String) {
        let existing = try decode(
            LFRBPostList.self,
            try await send(.get, "v1/posts", query: ["limit": "10000", "product_id": LFRBProduct.restaurant]))
        var restaurantID = existing.data.first { $0.content5 == kakaoID }?.post_id
        if restaurantID == nil {
            let created = try decode(
                LFRBPost.self,
                try await call(
                    .post, "v1/posts",
                    json: [
                        "title": name, "content": "#" + name, "content1": lng, "content2": lat,
                        "content3": "서울 강남구 테헤란로 1", "content4": "02-000-0000", "content5": kakaoID,
                        "product_id": LFRBProduct.restaurant,
                    ]))
            restaurantID = created.post_id
        }
        let files = try decode(LFRBUpload.self, try await upload(images)).files
        let review = try decode(
            LFRBPost.self,
            try await call(
                .post, "v1/posts",
                json: [
                    "title": title, "price": rating, "content": text, "content1": restaurantID!,
                    "product_id": LFRBProduct.review, "files": files,
                ]))
        _ = try decode(
            LFRBComment.self,
            try await call(.post, "v1/posts/\(review.content1)/comments", json: ["content": review.post_id]))
        return (review, restaurantID!)
    }
}
