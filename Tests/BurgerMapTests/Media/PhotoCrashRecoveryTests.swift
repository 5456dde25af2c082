import BurgerMap
import BurgerMapCore
import Crypto
import Foundation
import HummingbirdTesting
import Testing

@Suite("Photos after a crash: never served before their row commits, ids never reused, incoming/ emptied")
struct PhotoCrashRecoveryTests {
    @Test(
        "a crashed process's folder: committed photos published, the rest removed, their ids retired",
        arguments: StoreEngine.available)
    func settleAbandonedFolder(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .folder)
        let storage = try #require(environment.photoFolder)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let review = try json(
                try await client.postReview(place: place, photos: [TestImages.jpeg()], token: alice.token))
            let photo = try #require((review["photos"] as? [[String: Any]])?.first)
            let url = try #require(photo["url"] as? String)
            let id = try #require(Int64(url.dropFirst("/v1/photos/".count).dropLast(".jpg".count)))
            let served = try await client.execute(uri: url, method: .get)
            let bytes = Array(buffer: served.body)
            let digest = SHA256.hash(data: bytes).prefix(16).map { String(format: "%02x", $0) }.joined()
            #expect(served.headers[.eTag] == "\"\(digest)\"")

            // A process killed after the row of `id` committed and before its files moved, and
            // while a photo `id + 5` was being written (its row never committed).
            let dead = storage.root.appendingPathComponent("incoming/0d1e2a3d-dead-4bad-8bad-000000000001")
            try FileManager.default.createDirectory(at: dead, withIntermediateDirectories: true)
            try Data().write(to: dead.appendingPathComponent(".lock"))
            for name in ["\(id).jpg", "\(id).thumb.jpg"] {
                try FileManager.default.moveItem(
                    at: storage.root.appendingPathComponent(name), to: dead.appendingPathComponent(name))
            }
            for name in ["\(id + 5).jpg", "\(id + 5).thumb.jpg", "5b1c9e1a.jpg"] {
                try Data([0xFF, 0xD8, 0xFF]).write(to: dead.appendingPathComponent(name))
            }
            #expect(try await client.execute(uri: url, method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/v1/photos/\(id + 5).jpg", method: .get).status == .notFound)
            // A folder still being made (no lock yet) is left alone while it is young.
            let making = storage.root.appendingPathComponent("incoming/.making-0d1e2a3d-0000-4bad-8bad-000000000002")
            try FileManager.default.createDirectory(at: making, withIntermediateDirectories: true)
            // The dead process's folder is settled at once, whatever its age: its lock is free.
            #expect(try await storage.sweepOrphans(environment.stores.photos) == 3)
            #expect(FileManager.default.fileExists(atPath: making.path))
            let later = Timestamp(milliseconds: Timestamp.now().milliseconds + 120_000)
            #expect(try await storage.sweepOrphans(environment.stores.photos, now: later) == 0)
            #expect(!FileManager.default.fileExists(atPath: making.path))
            #expect(!FileManager.default.fileExists(atPath: dead.path))
            #expect(try await environment.photoFiles().incoming.isEmpty)
            let published = try await client.execute(uri: url, method: .get)
            #expect(published.status == .ok)
            #expect(Array(buffer: published.body) == bytes)
            #expect(published.headers[.eTag] == "\"\(digest)\"")
            #expect(try await client.execute(uri: "/v1/photos/\(id + 5).jpg", method: .get).status == .notFound)

            // The id of the photo that never committed is never given to another.
            let next = try json(
                try await client.postReview(place: place, photos: [TestImages.jpeg(width: 200)], token: alice.token))
            let nextURL = try #require((next["photos"] as? [[String: Any]])?.first?["url"] as? String)
            let nextID = try #require(Int64(nextURL.dropFirst("/v1/photos/".count).dropLast(".jpg".count)))
            #expect(nextID > id + 5)
            let other = try await client.execute(uri: nextURL, method: .get)
            #expect(other.headers[.eTag] != "\"\(digest)\"")
        }
    }

    @Test("a folder whose process still runs is never touched", arguments: StoreEngine.available)
    func liveFolderKept(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine, photos: .folder)
        let storage = try #require(environment.photoFolder)
        // A second storage on the same folder: another process sharing it, alive (its lock held).
        let other = try PhotoFolder(folder: storage.root)
        let later = Timestamp(milliseconds: Timestamp.now().milliseconds + 7200_000)
        let folders = try FileManager.default.contentsOfDirectory(
            atPath: storage.root.appendingPathComponent("incoming").path)
        #expect(folders.count == 2)
        #expect(try await storage.sweepOrphans(environment.stores.photos, now: later) == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(
                atPath: storage.root.appendingPathComponent("incoming").path
            ).count == 2)
        #expect(await other.probeWrite() == nil)
    }
}
