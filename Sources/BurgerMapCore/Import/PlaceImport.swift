import Foundation

/// The dataset formats the importer reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case csv
    case geojson

    /// The format a file name suggests (`.csv`, `.geojson` or `.json`), if any.
    public static func guess(for url: URL) -> ImportFormat? {
        switch url.pathExtension.lowercased() {
        case "csv", "txt": .csv
        case "geojson", "json": .geojson
        default: nil
        }
    }
}

/// An import option that breaks its field's rule (for example a 101-character `--category`).
public struct ImportOptionError: Error, CustomStringConvertible {
    package let field: FieldError

    public var description: String {
        "--category: " + field.message.text(in: .english)
    }
}

/// What one import did.
public struct ImportSummary: Sendable, CustomStringConvertible {
    public var read = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0
    /// The first skipped rows, with their position and reason (at most `keptSkips`).
    public var skips: [ImportSkip] = []
    public var seconds = 0.0
    public static let keptSkips = 100

    public init() {}

    public var description: String {
        let rate = seconds > 0 ? Int(Double(read) / seconds) : read
        return "read \(read), inserted \(inserted), updated \(updated), unchanged \(unchanged), skipped \(skipped) "
            + "in \(String(format: "%.2f", seconds)) s (\(rate) rows/s)"
    }
}

/// How far an import has come, for a progress display.
public struct ImportProgress: Sendable {
    public var bytesRead: Int64
    public var totalBytes: Int64?
    public var rows: Int
    public var seconds: Double
}

/// Imports a place dataset into the database.
///
/// A whole file is one transaction: a reader of the database sees all of an import or none of
/// it, and an import that fails or is killed leaves the database as it was. Places are matched
/// by (`source`, `external_id`) when a row has an id, otherwise by the same name within 25 m;
/// a match is updated, or counted unchanged, never duplicated. The reading is the same for
/// every engine; `Sink` is the engine's side (`PlaceImportSink`, which states the rules).
public struct PlaceImport<Sink: PlaceImportSink>: Sendable {
    public let sink: Sink

    public init(sink: Sink) {
        self.sink = sink
    }

    /// Imports `file` into any engine; `source` defaults to the file's name without its
    /// extension, and rows without a category get `category`.
    public func load(
        file: URL, format: ImportFormat? = nil, source: String? = nil, category: String? = nil,
        progress: ((ImportProgress) -> Void)? = nil
    ) async throws -> ImportSummary {
        let (feed, pipeline) = try Self.open(
            file: file, format: format, source: source, category: category, progress: progress)
        defer { pipeline.close() }
        return Self.finished(try await sink.importPlaces(from: feed), feed, progress)
    }

    /// Imports `file` through `apply`, which takes the rows from the feed on the calling thread
    /// (for an engine whose writes are synchronous); the same as `load` otherwise.
    package static func loadNow(
        file: URL, format: ImportFormat?, source: String?, category: String?,
        progress: ((ImportProgress) -> Void)?, apply: (PlaceImportFeed) throws -> ImportSummary
    ) throws -> ImportSummary {
        let (feed, pipeline) = try open(
            file: file, format: format, source: source, category: category, progress: progress)
        defer { pipeline.close() }
        return finished(try apply(feed), feed, progress)
    }

    /// Opens and starts reading `file`: the feed a sink takes its rows from.
    package static func open(
        file: URL, format: ImportFormat?, source: String?, category: String?,
        progress: ((ImportProgress) -> Void)?
    ) throws -> (PlaceImportFeed, ImportPipeline) {
        let category = PlaceRow.cleaned(category)
        if let category, let problem = TextField.placeCategory.problem(category) {
            throw ImportOptionError(field: problem)
        }
        let started = Date()
        let bytes = try ByteSource(url: file)
        let format = format ?? ImportFormat.guess(for: file) ?? .csv
        let source = source ?? file.deletingPathExtension().lastPathComponent
        let reader: any PlaceRowReader =
            switch format {
            case .csv: try CSVPlaceRowReader(source: bytes, path: file.path)
            case .geojson: GeoJSONPlaceRowReader(source: bytes, path: file.path)
            }
        let (locationWord, totalBytes) = (reader.locationWord, reader.size)
        let pipeline = ImportPipeline.start(reading: reader, source: source, category: category)
        let feed = PlaceImportFeed(
            source: source, locationWord: locationWord, totalBytes: totalBytes, started: started, pipeline: pipeline,
            progress: progress)
        return (feed, pipeline)
    }

    /// The summary with its time, after a last progress report.
    package static func finished(
        _ summary: ImportSummary, _ feed: PlaceImportFeed, _ progress: ((ImportProgress) -> Void)?
    )
        -> ImportSummary
    {
        var summary = summary
        summary.seconds = Date().timeIntervalSince(feed.started)
        progress?(
            ImportProgress(
                bytesRead: feed.bytesRead, totalBytes: feed.totalBytes, rows: summary.read, seconds: summary.seconds))
        return summary
    }
}
