import Foundation

/// The dataset formats the importer reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case csv
    case geojson
    /// An OpenStreetMap extract: `.osm.pbf` or `.osm` XML (`OSMPlaceReader` tells them apart).
    case osm

    /// The format a file name suggests (`.csv`, `.geojson`, `.json`, `.osm`, `.pbf`), if any.
    public static func guess(for url: URL) -> ImportFormat? {
        switch url.pathExtension.lowercased() {
        case "csv", "txt": .csv
        case "geojson", "json": .geojson
        case "osm", "pbf": .osm
        default: nil
        }
    }
}

/// How to import a file, beyond the file itself.
public struct PlaceImportOptions: Sendable {
    /// `nil`: from the file name (`ImportFormat.guess`), else CSV.
    public var format: ImportFormat?
    /// The dataset's name for matching rows on re-import: by default the file's name without
    /// its extension, and `osm` for an OpenStreetMap extract (so that a newer extract of the
    /// same area, whatever its file name, updates the places of the last).
    public var source: String?
    /// The category of rows that name none.
    public var category: String?
    /// The IANA time zone of the file's places (`--timezone`), which `open_now` is judged in.
    public var timeZone: String?
    /// Which OpenStreetMap objects are places.
    package var osmFilter: OSMPlaceFilter = .burger
    /// Whether the source's places that the file no longer holds are removed (those with
    /// reviews stay, and are counted).
    public var removeMissing = false

    public init(
        format: ImportFormat? = nil, source: String? = nil, category: String? = nil, timeZone: String? = nil,
        removeMissing: Bool = false
    ) {
        self.format = format
        self.source = source
        self.category = category
        self.timeZone = timeZone
        self.removeMissing = removeMissing
    }

    /// Sets the OpenStreetMap filter by its name (`burger`, `all-food`); `false` for another name.
    public mutating func setOSMFilter(named name: String) -> Bool {
        guard let filter = OSMPlaceFilter(rawValue: name) else { return false }
        osmFilter = filter
        return true
    }
}

/// An import option that breaks its field's rule (for example a 101-character `--category`).
public struct ImportOptionError: Error, CustomStringConvertible {
    package var option = "--category"
    package let field: FieldError

    public var description: String {
        option + ": " + field.message.text(in: .english)
    }
}

/// What one import did.
public struct ImportSummary: Sendable, CustomStringConvertible {
    public var read = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0
    /// With `removeMissing`: the source's places the file no longer holds that were removed, the
    /// first `keptSkips` of their external ids, and those that stayed for their reviews.
    public var removed = 0
    public var removedIDs: [String] = []
    public var keptForReviews = 0
    /// The first skipped rows, with their position and reason (at most `keptSkips`).
    public var skips: [ImportSkip] = []
    public var seconds = 0.0
    public static let keptSkips = 100

    public init() {}

    public var description: String {
        let rate = seconds > 0 ? Int(Double(read) / seconds) : read
        let removal = removed + keptForReviews > 0 ? ", removed \(removed) (kept \(keptForReviews) with reviews)" : ""
        return "read \(read), inserted \(inserted), updated \(updated), unchanged \(unchanged), skipped \(skipped)"
            + "\(removal) in \(String(format: "%.2f", seconds)) s (\(rate) rows/s)"
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
        try await load(
            file: file, options: PlaceImportOptions(format: format, source: source, category: category),
            progress: progress)
    }

    /// Imports `file` into any engine as `options` say.
    public func load(
        file: URL, options: PlaceImportOptions, progress: ((ImportProgress) -> Void)? = nil
    ) async throws -> ImportSummary {
        let (feed, pipeline) = try Self.open(file: file, options: options, progress: progress)
        defer { pipeline.close() }
        return Self.finished(try await sink.importPlaces(from: feed), feed, progress)
    }

    /// Imports `file` through `apply`, which takes the rows from the feed on the calling thread
    /// (for an engine whose writes are synchronous); the same as `load` otherwise.
    package static func loadNow(
        file: URL, format: ImportFormat?, source: String?, category: String?,
        progress: ((ImportProgress) -> Void)?, apply: (PlaceImportFeed) throws -> ImportSummary
    ) throws -> ImportSummary {
        try loadNow(
            file: file, options: PlaceImportOptions(format: format, source: source, category: category),
            progress: progress, apply: apply)
    }

    /// `loadNow` as `options` say.
    package static func loadNow(
        file: URL, options: PlaceImportOptions, progress: ((ImportProgress) -> Void)?,
        apply: (PlaceImportFeed) throws -> ImportSummary
    ) throws -> ImportSummary {
        let (feed, pipeline) = try open(file: file, options: options, progress: progress)
        defer { pipeline.close() }
        return finished(try apply(feed), feed, progress)
    }

    /// Opens and starts reading `file`: the feed a sink takes its rows from.
    package static func open(
        file: URL, options: PlaceImportOptions, progress: ((ImportProgress) -> Void)?
    ) throws -> (PlaceImportFeed, ImportPipeline) {
        let category = PlaceRow.cleaned(options.category)
        if let category, let problem = TextField.placeCategory.problem(category) {
            throw ImportOptionError(option: "--category", field: problem)
        }
        if let timeZone = options.timeZone, let problem = PlaceDetailRules.problem(timeZone: timeZone) {
            throw ImportOptionError(option: "--timezone", field: problem)
        }
        let started = Date()
        let format = options.format ?? ImportFormat.guess(for: file) ?? .csv
        let reader: any PlaceRowReader
        let source: String
        switch format {
        case .csv:
            reader = try CSVPlaceRowReader(source: try ByteSource(url: file), path: file.path)
            source = options.source ?? file.deletingPathExtension().lastPathComponent
        case .geojson:
            reader = GeoJSONPlaceRowReader(source: try ByteSource(url: file), path: file.path)
            source = options.source ?? file.deletingPathExtension().lastPathComponent
        case .osm:
            reader = try OSMPlaceRowReader(path: file.path, filter: options.osmFilter)
            source = options.source ?? "osm"
        }
        let (locationWord, totalBytes) = (reader.locationWord, reader.size)
        let pipeline = ImportPipeline.start(
            reading: reader, source: source, category: category, timeZone: options.timeZone)
        let feed = PlaceImportFeed(
            source: source, locationWord: locationWord, totalBytes: totalBytes, started: started, pipeline: pipeline,
            progress: progress, removeMissing: options.removeMissing,
            attribution: format == .osm ? PlaceSourceAttribution.openStreetMap : nil)
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
