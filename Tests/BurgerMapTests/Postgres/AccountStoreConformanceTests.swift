import Foundation
import Synchronization
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The same account checks on every engine: unique emails and nicknames whatever their case,
/// credentials, profiles and their counts, avatars.
@Suite("Account stores answer alike: accounts and profiles")
struct AccountStoreConformanceTests {
    @Test(
        "an email or nickname taken in any case is a conflict; credentials are found in any case",
        arguments: StoreEngine.available)
    func uniqueAccounts(engine: StoreEngine) async throws {
        try await withAccountInstance(engine) { instance in
            let store = instance.accounts
            let ha = try await store.createUser(
                email: "Ha@Example.com", passwordHash: "hash-1", nickname: "Haneul", at: secondsIn(0))
            #expect(ha.email == "Ha@Example.com" && ha.nickname == "Haneul" && ha.createdAt == secondsIn(0))
            #expect(ha.bio == nil && ha.avatarUrl == nil)

            #expect(try await store.accountExists(email: "ha@example.COM", nickname: nil) == .email)
            #expect(try await store.accountExists(email: nil, nickname: "HANEUL") == .nickname)
            #expect(try await store.accountExists(email: "ha@example.com", nickname: "haneul") == .email)
            #expect(try await store.accountExists(email: "jo@example.com", nickname: "Jo") == nil)

            await #expect(throws: AccountConflict.email) {
                try await store.createUser(
                    email: "HA@EXAMPLE.COM", passwordHash: "-", nickname: "Someone", at: secondsIn(1))
            }
            await #expect(throws: AccountConflict.nickname) {
                try await store.createUser(
                    email: "new@example.com", passwordHash: "-", nickname: "hAnEuL", at: secondsIn(1))
            }
            let jo = try await store.createUser(
                email: "jo@example.com", passwordHash: "hash-2", nickname: "Jo", at: secondsIn(2))
            #expect(jo.id != ha.id)

            let found = try #require(try await store.credentials(email: "ha@EXAMPLE.com"))
            #expect(found.user == ha && found.passwordHash == "hash-1")
            #expect(try await store.credentials(email: "nobody@example.com") == nil)
            #expect(try await store.user(id: jo.id) == jo)
            #expect(try await store.user(id: jo.id + 1000) == nil)
            #expect(try await store.userExists(id: ha.id))
            #expect(try await !store.userExists(id: jo.id + 1000))
        }
    }

    @Test(
        "profile edits: nickname and bio, an empty bio clears, a taken nickname changes nothing",
        arguments: StoreEngine.available)
    func profileEdits(engine: StoreEngine) async throws {
        try await withAccountInstance(engine) { instance in
            let store = instance.accounts
            let ha = try await store.createUser(
                email: "ha@example.com", passwordHash: "-", nickname: "Haneul", at: secondsIn(0))
            let jo = try await store.createUser(
                email: "jo@example.com", passwordHash: "-", nickname: "Jo", at: secondsIn(0))

            let edited = try await store.updateProfile(
                id: ha.id, nickname: "Neo", bio: "Burgers daily", at: secondsIn(5))
            #expect(edited?.nickname == "Neo" && edited?.bio == "Burgers daily" && edited?.createdAt == secondsIn(0))
            // The old nickname is free again; the new one is taken in any case.
            #expect(try await store.accountExists(email: nil, nickname: "haneul") == nil)
            #expect(try await store.accountExists(email: nil, nickname: "NEO") == .nickname)
            // Only the case of one's own nickname changes: no conflict with oneself.
            #expect(
                try await store.updateProfile(id: ha.id, nickname: "NEO", bio: nil, at: secondsIn(6))?.nickname == "NEO"
            )

            let cleared = try await store.updateProfile(id: ha.id, nickname: nil, bio: "", at: secondsIn(7))
            #expect(cleared?.bio == nil && cleared?.nickname == "NEO")

            await #expect(throws: AccountConflict.nickname) {
                try await store.updateProfile(id: ha.id, nickname: "jO", bio: "changed", at: secondsIn(8))
            }
            let unchanged = try await store.user(id: ha.id)
            #expect(unchanged?.nickname == "NEO" && unchanged?.bio == nil)
            #expect(try await store.user(id: jo.id)?.nickname == "Jo")

            #expect(
                try await store.updateProfile(id: jo.id + 1000, nickname: "Ghost", bio: "boo", at: secondsIn(9)) == nil)
            #expect(try await store.accountExists(email: nil, nickname: "Ghost") == nil)
        }
    }

    @Test("profile counts and whether the viewer follows", arguments: StoreEngine.available)
    func profileCounts(engine: StoreEngine) async throws {
        try await withAccountInstance(engine) { instance in
            let store = instance.accounts
            var ids: [Int64] = []
            for name in ["ha", "jo", "mi"] {
                ids.append(
                    try await store.createUser(
                        email: "\(name)@example.com", passwordHash: "-", nickname: name, at: secondsIn(0)
                    ).id)
            }
            try await instance.follow(ids[1], ids[0])
            try await instance.follow(ids[2], ids[0])
            try await instance.follow(ids[0], ids[2])
            #expect(
                try await store.profileStats(of: ids[0], viewer: ids[1])
                    == ProfileStats(reviewCount: 0, followerCount: 2, followingCount: 1, isFollowing: true))
            #expect(
                try await store.profileStats(of: ids[0], viewer: nil)
                    == ProfileStats(reviewCount: 0, followerCount: 2, followingCount: 1, isFollowing: false))
            #expect(
                try await store.profileStats(of: ids[1], viewer: ids[0])
                    == ProfileStats(reviewCount: 0, followerCount: 0, followingCount: 1, isFollowing: false))
            #expect(try await store.profileStats(of: ids[2] + 1000, viewer: ids[0]) == ProfileStats())
        }
    }

    struct AvatarStepFailed: Error {}

    @Test(
        "avatars: the step before commit sees the new id; when it throws, no row stays and the old avatar stays",
        arguments: StoreEngine.available)
    func avatars(engine: StoreEngine) async throws {
        try await withAccountInstance(engine) { instance in
            let store = instance.accounts
            let ha = try await store.createUser(
                email: "ha@example.com", passwordHash: "-", nickname: "Haneul", at: secondsIn(0))
            let steps = Mutex<[Int64]>([])
            let size = PhotoSize(width: 640, height: 480)

            let first = try #require(
                try await store.replaceAvatar(userID: ha.id, photo: size, at: secondsIn(1)) { id in
                    steps.withLock { $0.append(id) }
                })
            let firstID = try #require(steps.withLock { $0.last })
            #expect(first.replaced == nil)
            #expect(first.user.avatarUrl == PhotoURL.thumbnail(firstID) && first.user.nickname == "Haneul")
            #expect(try await instance.photos.storedPhotoIDs() == [firstID])

            let second = try #require(
                try await store.replaceAvatar(userID: ha.id, photo: size, at: secondsIn(2)) { id in
                    steps.withLock { $0.append(id) }
                })
            let secondID = try #require(steps.withLock { $0.last })
            #expect(secondID != firstID && second.replaced == firstID)
            #expect(second.user.avatarUrl == PhotoURL.thumbnail(secondID))
            #expect(try await instance.photos.storedPhotoIDs() == [secondID])

            await #expect(throws: AvatarStepFailed.self) {
                try await store.replaceAvatar(userID: ha.id, photo: size, at: secondsIn(3)) { id in
                    steps.withLock { $0.append(id) }
                    throw AvatarStepFailed()
                }
            }
            let failedID = try #require(steps.withLock { $0.last })
            #expect(failedID != secondID)
            #expect(try await store.user(id: ha.id)?.avatarUrl == PhotoURL.thumbnail(secondID))
            #expect(try await instance.photos.storedPhotoIDs() == [secondID])

            // A missing user: nothing written, and the step never runs.
            let stepsBefore = steps.withLock { $0.count }
            let missing = try await store.replaceAvatar(userID: ha.id + 1000, photo: size, at: secondsIn(4)) { id in
                steps.withLock { $0.append(id) }
            }
            #expect(missing == nil)
            #expect(steps.withLock { $0.count } == stepsBefore)
            #expect(try await instance.photos.storedPhotoIDs() == [secondID])
        }
    }
}
