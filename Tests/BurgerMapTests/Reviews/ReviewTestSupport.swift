import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMapSQLite

extension TestEnvironment {
    /// Rows of the review tables: reviews and photos.
    func reviewRowCounts() async throws -> (reviews: Int, photos: Int) {
        (try await rowCount("reviews"), try await rowCount("photos"))
    }
}

extension TestClientProtocol {
    /// Registers a user and returns the access token and user id.
    func member(_ nickname: String) async throws -> (token: String, id: Int64) {
        let body = try await register(email: "\(nickname)@example.com", nickname: nickname)
        let user = try #require(body["user"] as? [String: Any])
        return (try tokens(body).access, try #require((user["id"] as? NSNumber)?.int64Value))
    }

    /// Adds a place and returns its id.
    func addPlace(_ name: String, token: String) async throws -> Int64 {
        let response = try await send(
            .post, "/v1/places", json: ["name": name, "lat": 37.5, "lng": 127.0], token: token)
        return try #require((try json(response)["id"] as? NSNumber)?.int64Value)
    }

    /// Posts a review with photos and returns the response.
    func postReview(
        place: Int64, rating: String = "5", text: String = "Great smash burger.", photos: [[UInt8]] = [],
        token: String, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var form = MultipartBody()
        form.field("rating", rating)
        form.field("text", text)
        for photo in photos { form.file("photo", photo) }
        return try await upload(.post, "/v1/places/\(place)/reviews", form, token: token, headers: headers)
    }
}
