import ArgumentParser
import BurgerMap
import BurgerMapCore
import Logging

/// `burgermap admin …`: the operator's account commands.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Grant or revoke the moderator role.",
        subcommands: [GrantModerator.self, RevokeModerator.self])
}

/// `burgermap admin grant-moderator EMAIL`.
struct GrantModerator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant-moderator",
        abstract: "Make the account with EMAIL a moderator (written to the audit log).")

    @Argument(help: "The account's email.") var email: String
    @OptionGroup var storage: StorageOptions

    func run() async throws { try await setModerator(email: email, granted: true, storage: storage) }
}

/// `burgermap admin revoke-moderator EMAIL`.
struct RevokeModerator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-moderator",
        abstract: "Take the moderator role from the account with EMAIL (written to the audit log).")

    @Argument(help: "The account's email.") var email: String
    @OptionGroup var storage: StorageOptions

    func run() async throws { try await setModerator(email: email, granted: false, storage: storage) }
}

private func setModerator(email: String, granted: Bool, storage: StorageOptions) async throws {
    let outcome = try await storage.withStores(logger: Logger(label: "burgermap"), existing: true) { stores, _ in
        try await stores.moderation.setModerator(email: email, granted: granted, at: .now())
    }
    guard outcome == .done else {
        printError("burgermap admin: no account has the email \(email)")
        throw ExitCode.failure
    }
    print(granted ? "\(email) is a moderator" : "\(email) is no longer a moderator")
}
