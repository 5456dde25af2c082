import BurgerMap
import BurgerMapCore
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMapSQLite

extension TestEnvironment {
    /// The photo files in the data folder: final names, and anything left in `incoming/`.
    func photoFiles() throws -> (stored: Set<String>, incoming: [String]) {
        let root = media.storage.root
        let stored = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".jpg") }
        // Every file waiting in `incoming/` (in the process folders too), but their locks.
        let incomingFolder = root.appendingPathComponent("incoming").path
        let incoming = try FileManager.default.subpathsOfDirectory(atPath: incomingFolder).filter { path in
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: incomingFolder + "/" + path, isDirectory: &isFolder)
            return !isFolder.boolValue && !path.hasSuffix("/.lock")
        }
        return (Set(stored), incoming.sorted())
    }

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
