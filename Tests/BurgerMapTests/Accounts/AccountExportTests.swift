import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Exporting my data")
struct AccountExportTests {
    /// What Python's own `zipfile` reads in an archive: its names, whether every CRC holds,
    /// the JSON document, and whether each photo equals the stored file.
    struct Reading: Decodable {
        var names: [String]
        var bad: String?
        var document: [String: AnyDecodable]
        var photosMatch: Bool
    }

    struct AnyDecodable: Decodable {
        let value: Any
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let object = try? container.decode([String: AnyDecodable].self) {
                value = object.mapValues(\.value)
            } else if let array = try? container.decode([AnyDecodable].self) {
                value = array.map(\.value)
            } else if let number = try? container.decode(Int64.self) {
                value = number
            } else if let text = try? container.decode(String.self) {
                value = text
            } else if let flag = try? container.decode(Bool.self) {
                value = flag
            } else if let number = try? container.decode(Double.self) {
                value = number
            } else {
                value = NSNull()
            }
        }
    }

    static func read(zip: URL, photos: URL) throws -> Reading {
        let script = """
            import json, sys, zipfile, os
            archive = zipfile.ZipFile(sys.argv[1])
            names = archive.namelist()
            photos_match = all(
                archive.read(name) == open(os.path.join(sys.argv[2], name.split('/')[1]), 'rb').read()
                for name in names if name.startswith('photos/'))
            print(json.dumps({'names': names, 'bad': archive.testzip(),
                              'document': json.loads(archive.read('burgermap-export.json')),
                              'photosMatch': photos_match}))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, zip.path, photos.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try JSONDecoder().decode(Reading.self, from: data)
    }

    @Test("a ZIP of the account's data and photos, read back by another ZIP reader", arguments: StoreEngine.available)
    func export(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let bob = try await client.member("bob")
            let carol = try await client.member("carol")
            let place = try await client.addPlace("Export Burgers", token: bob.token)
            var form = MultipartBody()
            form.file("avatar", TestImages.jpeg(width: 300, height: 300))
            #expect(try await client.upload(.put, "/v1/users/me/avatar", form, token: alice.token).status == .ok)
            let mine = try json(
                try await client.postReview(
                    place: place, text: "Mine, with photos",
                    photos: [TestImages.jpeg(), TestImages.jpeg(width: 100, height: 80)],
                    token: alice.token))
            let bobs = try #require(try json(try await client.postReview(place: place, token: bob.token))["id"] as? Int)
            _ = try await client.send(.put, "/v1/reviews/\(bobs)/like", token: alice.token)
            _ = try await client.send(.put, "/v1/reviews/\(bobs)/bookmark", token: alice.token)
            _ = try await client.send(
                .post, "/v1/reviews/\(bobs)/comments", json: ["text": "first"], token: alice.token)
            _ = try await client.send(
                .post, "/v1/reviews/\(bobs)/comments", json: ["text": "second"], token: alice.token)
            _ = try await client.send(.put, "/v1/users/\(bob.id)/follow", token: alice.token)
            _ = try await client.send(.put, "/v1/users/\(alice.id)/follow", token: carol.token)
            // A like on the review of someone she then blocks is hers all the same.
            let dave = try await client.member("dave")
            let daves = try #require(
                try json(try await client.postReview(place: place, token: dave.token))["id"] as? Int)
            _ = try await client.send(.put, "/v1/reviews/\(daves)/like", token: alice.token)
            _ = try await client.send(.put, "/v1/users/\(dave.id)/block", token: alice.token)
            try await environment.settleNotifications()

            let response = try await client.send(.get, "/v1/users/me/export", token: alice.token)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/zip")
            let zip = environment.folder.appendingPathComponent("export.zip")
            try Data(buffer: response.body).write(to: zip)
            let reading = try Self.read(zip: zip, photos: try await environment.fullImagesFolder())
            #expect(reading.bad == nil)
            #expect(reading.photosMatch)
            let photoIDs = try #require(mine["photos"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
            #expect(reading.names.count == 4)  // the document, two review photos, the avatar
            #expect(reading.names.first == "burgermap-export.json")
            #expect(Set(photoIDs.map { "photos/\($0).jpg" }).isSubset(of: Set(reading.names)))
            let document = reading.document.mapValues(\.value)
            let account = try #require(document["account"] as? [String: Any])
            #expect(account["email"] as? String == "alice@example.com")
            let reviews = try #require(document["reviews"] as? [[String: Any]])
            #expect(reviews.map { $0["text"] as? String } == ["Mine, with photos"])
            let comments = try #require(document["comments"] as? [[String: Any]])
            #expect(comments.map { $0["text"] as? String } == ["first", "second"])
            #expect(document["liked_reviews"] as? [Int64] == [Int64(daves), Int64(bobs)])
            #expect((document["blocked"] as? [[String: Any]])?.map { $0["nickname"] as? String } == ["dave"])
            #expect(document["bookmarked_reviews"] as? [Int64] == [Int64(bobs)])
            #expect((document["following"] as? [[String: Any]])?.map { $0["nickname"] as? String } == ["bob"])
            #expect((document["followers"] as? [[String: Any]])?.map { $0["nickname"] as? String } == ["carol"])
            // Her notifications: Carol's follow, as her list shows it.
            let notifications = try #require(document["notifications"] as? [[String: Any]])
            #expect(notifications.map { $0["type"] as? String } == ["follow"])
            #expect(
                (notifications.first?["actors"] as? [[String: Any]])?.map { $0["nickname"] as? String } == ["carol"])
            // Without a token: 401.
            #expect(try await client.send(.get, "/v1/users/me/export").status == .unauthorized)
        }
    }
}
