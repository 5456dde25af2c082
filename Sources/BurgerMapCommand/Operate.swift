import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapSQLite
import Foundation
import Logging

/// `burgermap backup FILE`: a consistent copy of the database while the service runs.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the database to FILE while the service keeps serving.",
        discussion: """
            The copy is one consistent snapshot (SQLite's VACUUM INTO), checked before it takes \
            its name. Photos are files in DATA_DIR/photos, written once and never changed: copy \
            that folder (for example with rsync) after the database. Keep DATA_DIR/secret.key too. \
            For PostgreSQL (`serve --database`), use pg_dump and copy the photo folder.
            """)

    @Argument(help: "Where to write the copy (must not exist).") var file: String
    @OptionGroup var data: DataOptions

    func run() async throws {
        try data.requireDatabase()
        let database = try AppDatabase(dataDirectory: data.dataDirectory)
        let destination = URL(fileURLWithPath: file)
        do {
            try await database.backup(to: destination)
        } catch let error as BackupError {
            printError("burgermap backup: \(error)")
            throw ExitCode.failure
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
        print("wrote \(destination.path) (\(size) bytes)")
    }
}

/// `burgermap sources`: the import sources and their places.
struct ListSources: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources", abstract: "List the import sources and their places.")

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let sources = try await storage.withStores(logger: Logger(label: "burgermap"), existing: true) { stores, _ in
            try await stores.places.placeSources()
        }
        guard !sources.isEmpty else {
            print("no import sources")
            return
        }
        let width = max(6, sources.map(\.name.count).max() ?? 0)
        print("source".padding(toLength: width, withPad: " ", startingAt: 0) + "  places  reviewed")
        for source in sources {
            let places = String(source.places)
            let reviewed = String(source.reviewedPlaces)
            print(
                source.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + String(repeating: " ", count: max(0, 6 - places.count)) + places + "  "
                    + String(repeating: " ", count: max(0, 8 - reviewed.count)) + reviewed)
        }
    }
}

/// `burgermap remove-source NAME`: deletes the places an import source brought.
struct RemoveSource: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-source",
        abstract: "Delete the places of an import source.",
        discussion: "Places with reviews stay (reviews keep their place); the command says how many.")

    @Argument(help: "The source's name, as `burgermap sources` lists it.") var name: String
    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let (deleted, kept) = try await storage.withStores(logger: Logger(label: "burgermap"), existing: true) {
            [name] stores, _ in
            try await stores.places.removePlaceSource(name)
        }
        guard deleted + kept > 0 else {
            printError("burgermap remove-source: no places from source \"\(name)\"")
            throw ExitCode.failure
        }
        print("\(name): deleted \(deleted) places" + (kept > 0 ? ", kept \(kept) with reviews" : ""))
    }
}
