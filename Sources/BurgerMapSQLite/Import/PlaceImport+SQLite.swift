import BurgerMap
import Foundation

/// Imports into the SQLite engine, which can also write on the calling thread.
extension PlaceImport where Sink == AppDatabase {
    /// An import into `database`.
    public init(database: AppDatabase) {
        self.init(sink: database)
    }

    /// The database this import writes to.
    public var database: AppDatabase { sink }

    /// Imports `file` into the SQLite database, synchronously (SQLite's writes are); the same as
    /// `load`.
    public func run(
        file: URL, format: ImportFormat? = nil, source: String? = nil, category: String? = nil,
        progress: ((ImportProgress) -> Void)? = nil
    ) throws -> ImportSummary {
        try Self.loadNow(
            file: file, format: format, source: source, category: category, progress: progress,
            apply: database.importPlacesNow)
    }
}
