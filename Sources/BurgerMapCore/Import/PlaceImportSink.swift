import Foundation

/// The database side of an import, one per storage engine.
///
/// `PlaceImport` reads and validates a file on a thread of its own and hands the items over in
/// file order through a `PlaceImportFeed`; the sink applies them in one transaction and answers
/// what it did. Every sink keeps the same rules, which the tests check on every engine:
///
/// - a whole file is one transaction: a failed or killed import leaves the database as it was;
/// - a row with an id matches the place of the same (`feed.source`, id); a row without one
///   matches the nearest place with the same name (ignoring case, `String.lowercased()`)
///   within 25 m by `bm_haversine_m`, ties by the lower id, that no earlier row of the file has
///   matched or inserted; a match whose fields differ (`PlaceDraft`'s `==`) is updated and
///   otherwise counted unchanged; a place matched by name keeps its source and id;
/// - a row whose id names a place an earlier row of the file already matched or inserted is
///   skipped as `.duplicateID(id, first: "<location of that row>")`;
/// - `summary.read` counts every item; `skipped` every skip, of which the first
///   `ImportSummary.keptSkips` in file order are kept with their location
///   (`"\(feed.locationWord) \(position)"`);
/// - new places get ids in file order, and all of one import's rows the same time.
///
/// The feed is the sink's to pull from, rather than the importer pushing into it, because both
/// engines' transactions are scoped by a closure (GRDB's write, postgres-nio's COPY writer).
public protocol PlaceImportSink: Sendable {
    /// Applies every item of `feed`, in order, in one transaction, and commits.
    func importPlaces(from feed: PlaceImportFeed) async throws -> ImportSummary
}

/// The rows of one file on their way to the database, in file order, as the reading thread
/// validates them; and where the sink reports how far it has come.
///
/// One sink uses a feed at a time, from one thread or task at a time.
public final class PlaceImportFeed: @unchecked Sendable {
    /// Rows or skips with their positions (line or feature numbers, increasing).
    public typealias Batch = [(position: Int, item: ImportItem)]

    /// The dataset's name for matching rows by id (`source` of the places it brings).
    public let source: String
    /// "line" for CSV, "feature" for GeoJSON: how skips name their row.
    public let locationWord: String
    /// When the import began (for rates in progress reports).
    public let started: Date
    package let totalBytes: Int64?
    private let pipeline: ImportPipeline
    private let progress: ((ImportProgress) -> Void)?
    private var lastReport = Date()
    private(set) var bytesRead: Int64 = 0
    /// Whether the source's places that the file does not hold are to be removed (those with
    /// reviews stay); the sink does it in the import's transaction (`seenExternalIDs`).
    public let removeMissing: Bool
    /// The attribution the file's licence requires (`PlaceSourceAttribution`), which the sink
    /// records for the source in the import's transaction; `nil` for none.
    public let attribution: String?
    /// With `removeMissing`: the external ids of every place row taken so far.
    public private(set) var seenExternalIDs: Set<String> = []

    package init(
        source: String, locationWord: String, totalBytes: Int64?, started: Date, pipeline: ImportPipeline,
        progress: ((ImportProgress) -> Void)?, removeMissing: Bool = false, attribution: String? = nil
    ) {
        self.attribution = attribution
        self.source = source
        self.locationWord = locationWord
        self.totalBytes = totalBytes
        self.started = started
        self.pipeline = pipeline
        self.progress = progress
        self.removeMissing = removeMissing
    }

    /// The next batch, or `nil` after the last; throws the reader's error (a file that cannot be
    /// read on). Blocks the calling thread: for sinks that write synchronously on a thread of
    /// their own.
    public func take() throws -> Batch? {
        try unpacked(pipeline.take())
    }

    /// The next batch, or `nil` after the last, waiting as a task (no thread is blocked).
    public func next() async throws -> Batch? {
        try unpacked(await pipeline.next())
    }

    private func unpacked(_ message: ImportPipeline.Message) throws -> Batch? {
        switch message {
        case .batch(let items, let read):
            bytesRead = read
            if removeMissing {
                for case (_, .place(let draft)) in items {
                    if let id = draft.externalId { seenExternalIDs.insert(id) }
                }
            }
            return items
        case .end: return nil
        case .failure(let error): throw error
        }
    }

    /// Tells the progress display that `rows` items have been taken in so far; reports at most
    /// five times a second.
    public func applied(rows: Int) {
        guard let progress, Date().timeIntervalSince(lastReport) > 0.2 else { return }
        lastReport = Date()
        progress(
            ImportProgress(
                bytesRead: bytesRead, totalBytes: totalBytes, rows: rows,
                seconds: lastReport.timeIntervalSince(started)))
    }
}
