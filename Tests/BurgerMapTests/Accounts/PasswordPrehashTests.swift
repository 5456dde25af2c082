import BurgerMap
import BurgerMapCore
import Foundation
import HummingbirdBcrypt
import Testing

@Suite("Passwords: every byte counts, older hashes still work and are upgraded")
struct PasswordPrehashTests {
    @Test("passwords that differ only after byte 72 are different passwords", arguments: StoreEngine.available)
    func longPasswords(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            // 100 bytes alike, then a different end: bcrypt alone reads the first 72.
            let common = String(repeating: "burger", count: 16) + "abcd"
            _ = try await client.register(email: "mina@example.com", nickname: "mina", password: common + "-one")
            #expect(try await client.login(email: "mina@example.com", password: common + "-one").status == .ok)
            let other = try await client.login(email: "mina@example.com", password: common + "-two")
            #expect(other.status == .unauthorized)
            #expect(try problemCode(other) == "invalid_credentials")
            // The contract's longest password, 128 characters of 4 bytes each, works too.
            let longest = String(repeating: "🍔", count: 128)
            _ = try await client.register(email: "jun@example.com", nickname: "jun", password: longest)
            #expect(try await client.login(email: "jun@example.com", password: longest).status == .ok)
            #expect(
                try await client.login(email: "jun@example.com", password: String(longest.dropLast()) + "🍟").status
                    == .unauthorized)
        }
    }

    @Test(
        "a hash stored before pre-hashing still logs in, and is replaced by the new form",
        arguments: StoreEngine.available)
    func upgradeOnLogin(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            _ = try await client.register(email: "mina@example.com", nickname: "mina", password: "first password")
            // The form an older version stored: plain bcrypt of the password.
            let legacy = Bcrypt.hash("older password", cost: 10)
            try await environment.execute("UPDATE users SET password_hash = '\(legacy)'")
            #expect(
                try await client.login(email: "mina@example.com", password: "older passwort").status == .unauthorized)
            #expect(try await environment.text("SELECT password_hash FROM users") == legacy)
            #expect(try await client.login(email: "mina@example.com", password: "older password").status == .ok)
            let upgraded = try #require(try await environment.text("SELECT password_hash FROM users"))
            #expect(upgraded.hasPrefix("$bm2$$2b$10$"))
            #expect(try await client.login(email: "mina@example.com", password: "older password").status == .ok)
            #expect(
                try await client.login(email: "mina@example.com", password: "older passwort").status == .unauthorized)
        }
    }
}
