import ArgumentParser
import BurgerMap
import BurgerMapCore
import BurgerMapPostgres
import BurgerMapSQLite
import Foundation
import Logging

extension ImportFormat: ExpressibleByArgument {}

/// `burgermap import`: loads CSV, GeoJSON or OpenStreetMap place datasets into the database.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import place datasets (CSV, GeoJSON, or OpenStreetMap .osm.pbf / .osm).",
        discussion: """
            Places are matched by (source, id) when a row has an id, else by the same name within \
            25 m; a match is updated, not duplicated, so importing a file again changes nothing. \
            An OpenStreetMap extract's places are its burger places (or, with --osm-filter \
            all-food, every fast_food, restaurant, cafe and food_court) with node/…, way/… or \
            relation/… as their id, in the source `osm`, so a newer extract updates them. \
            Each file is one transaction, into the SQLite file of the data folder or, with \
            --database (or BURGERMAP_DATABASE_URL), into PostgreSQL.
            """)

    @Argument(help: "CSV, GeoJSON or OpenStreetMap (.osm.pbf, .osm) files.") var files: [String]
    @OptionGroup var storage: StorageOptions
    @Option(
        help:
            "Dataset name for matching rows on re-import (default: the file name without extension; osm for OpenStreetMap)."
    )
    var source: String?
    @Option(help: "csv, geojson or osm (default: from the file extension).") var format: ImportFormat?
    @Option(help: "Category of the rows that have no category column or value (for example burger).")
    var category: String?
    @Option(help: "IANA time zone of the file's places (for example Asia/Seoul), for open_now.")
    var timezone: String?
    @Option(help: "Which OpenStreetMap objects are places: burger (default) or all-food.")
    var osmFilter = "burger"
    @Flag(help: "Remove the source's places that the file no longer holds (places with reviews stay).")
    var removeMissing = false

    func validate() throws {
        var options = PlaceImportOptions()
        guard options.setOSMFilter(named: osmFilter) else {
            throw ValidationError("--osm-filter must be burger or all-food")
        }
    }

    /// The options of each file's import.
    private var options: PlaceImportOptions {
        var options = PlaceImportOptions(
            format: format, source: source, category: category, timeZone: timezone, removeMissing: removeMissing)
        _ = options.setOSMFilter(named: osmFilter)
        return options
    }

    func run() async throws {
        let failed = try await storage.withStores(logger: Logger(label: "burgermap")) { [self] _, engine in
            var failed = false
            for file in files {
                if await !importFile(URL(fileURLWithPath: file), into: engine) { failed = true }
            }
            return failed
        }
        if failed { throw ExitCode.failure }
    }

    /// Imports one file and prints its summary and skips; answers whether it went in.
    private func importFile(_ url: URL, into engine: StorageOptions.Engine) async -> Bool {
        let bar = ProgressBar(label: url.lastPathComponent)
        do {
            let summary =
                switch engine {
                case .sqlite(let database):
                    try await PlaceImport(database: database).load(file: url, options: options, progress: bar.update)
                case .postgres(let engine):
                    try await PlaceImport(sink: engine.placeImport).load(
                        file: url, options: options, progress: bar.update)
                }
            bar.clear()
            for skip in summary.skips {
                printError("\(url.lastPathComponent): skipped \(skip)")
            }
            if summary.skipped > summary.skips.count {
                printError("\(url.lastPathComponent): … and \(summary.skipped - summary.skips.count) more skipped")
            }
            for id in summary.removedIDs {
                print("\(url.lastPathComponent): removed \(id)")
            }
            if summary.removed > summary.removedIDs.count {
                print("\(url.lastPathComponent): … and \(summary.removed - summary.removedIDs.count) more removed")
            }
            print("\(url.lastPathComponent): \(summary)")
            return true
        } catch {
            bar.clear()
            printError("burgermap import: \(error)")
            return false
        }
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// A one-line progress bar with rate and time left, drawn on standard error only when it is a
/// terminal (logs and CI see just the summary).
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let enabled = isatty(STDERR_FILENO) == 1
    private var drawn = false

    init(label: String) {
        self.label = label
    }

    func update(_ progress: ImportProgress) {
        guard enabled else { return }
        let rate = progress.seconds > 0 ? Double(progress.rows) / progress.seconds : 0
        var line = "\(label) "
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(1, Double(progress.bytesRead) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            line += String(format: "%3.0f%% ", fraction * 100)
            if fraction > 0, fraction < 1 {
                line += String(format: "ETA %.0fs ", progress.seconds * (1 - fraction) / fraction)
            }
        }
        line += "\(progress.rows) rows, \(Int(rate)) rows/s"
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
        drawn = true
    }

    func clear() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
