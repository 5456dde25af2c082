import BurgerMapCore
import PostgresNIO

/// Where a keyset page of (time, id) pairs starts on PostgreSQL: the bound a statement's
/// `(time, id) < ($1, $2)` or `> ($1, $2)` condition takes, for the lists that page by time
/// (reviews, the feed, comments, follows, blocks, reports).
enum PostgresKeyset {
    /// The (time, id) a newest-first page continues strictly below. The first page starts above
    /// every stored pair, so that one statement (with its index condition) serves every page.
    static func below(_ key: TimeKey?) -> (time: Int64, id: Int64) {
        KeysetDirection.newestFirst.start(after: key)
    }

    /// The (time, id) an oldest-first page continues strictly above (see `below`).
    static func above(_ key: TimeKey?) -> (time: Int64, id: Int64) {
        KeysetDirection.oldestFirst.start(after: key)
    }
}

/// Questions asked of a query's rows without decoding them.
enum PostgresRows {
    /// Whether a query returned any row.
    static func exist(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws -> Bool {
        for try await _ in rows { return true }
        return false
    }
}
