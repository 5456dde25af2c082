import BurgerMapCore
import Logging
import PostgresNIO

/// The pairs of adjacent code points in the places' folded texts (`SearchPairs`), by which place
/// search finds the substrings of a 2-code-point query: `pg_trgm` hashes the trigrams it cannot
/// pack, so its GIN indexes cannot list the trigrams that start with a pair, as SQLite's
/// `v19-search-pairs` does with its own index.
///
/// `place_search_pairs` holds (pair, place) rows for every pair that `search_common_pairs` does
/// not name. It has no foreign key (a first load lists its places before they are swapped in),
/// so a row may outlive its place or the text that held the pair: such a row names a place that
/// no longer holds the pair, and the search, which tests every place it reads, leaves it out. A
/// missing row is what would be wrong, and every writer lists its places' pairs in the
/// transaction that writes them.
///
/// Measured (`scripts/bench-search --engines`, 1,000,000 places): see docs/performance/search.md.
package struct PostgresSearchPairs {
    let connection: PostgresConnection
    let logger: Logger

    package init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// v17-search-pairs.
    static let migration: [String] = [
        "CREATE TABLE place_search_pairs (pair BIGINT NOT NULL, place_id BIGINT NOT NULL, PRIMARY KEY (pair, place_id))",
        "CREATE TABLE search_common_pairs (pair BIGINT PRIMARY KEY)",
    ]

    /// The places' folded texts, as every list below reads them.
    private static let texts = "SELECT id, search_name, search_names, search_address FROM places"

    /// Lists the pairs of the places `ids` that are not common (after a place is written).
    package func list(placeIDs ids: [Int64]) async throws {
        try await list(connection.query("\(unescaped: Self.texts) WHERE id = ANY(\(ids)::BIGINT[])", logger: logger))
    }

    /// Lists the pairs of the places whose ids `table` (a constant of an import) holds.
    func list(placesIn table: String) async throws {
        try await list(
            connection.query(
                "\(unescaped: Self.texts) WHERE id IN (SELECT id FROM \(unescaped: table))", logger: logger)
        )
    }

    private func list(_ rows: some AsyncSequence<PostgresRow, any Error>) async throws {
        var pairs: [Int64] = []
        var places: [Int64] = []
        for try await (id, name, names, address) in rows.decode((Int64, String, String?, String?).self) {
            for key in SearchPairs.keys(name: name, names: names, address: address) {
                pairs.append(key)
                places.append(id)
            }
        }
        for start in stride(from: 0, to: pairs.count, by: 100_000) {
            let end = min(start + 100_000, pairs.count)
            let (batchPairs, batchPlaces) = (Array(pairs[start..<end]), Array(places[start..<end]))
            try await connection.query(
                """
                INSERT INTO place_search_pairs (pair, place_id)
                SELECT k.pair, k.place FROM unnest(\(batchPairs)::BIGINT[], \(batchPlaces)::BIGINT[]) AS k(pair, place)
                WHERE NOT EXISTS (SELECT FROM search_common_pairs AS c WHERE c.pair = k.pair)
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }

    /// Copies the listed pairs of a first load's count in (their places are new: no row is there).
    func copyListed(_ count: SearchPairCount) async throws {
        try await connection.copyFrom(table: "place_search_pairs", columns: ["pair", "place_id"], logger: logger) {
            writer in
            var buffer = ByteBuffer()
            for (key, places) in count.listed {
                for place in places {
                    PostgresCopyText.appendInteger(Int(key), to: &buffer)
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    PostgresCopyText.appendInteger(Int(place), to: &buffer)
                    buffer.writeInteger(UInt8(ascii: "\n"))
                }
                if buffer.readableBytes >= 1 << 18 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }

    /// Makes the common pairs of `count` the only common ones: in the transaction that makes its
    /// places the only places (a first load's), so that every pair no longer named common is
    /// listed for each place that holds it.
    func replaceCommon(with count: SearchPairCount) async throws {
        try await connection.query("DELETE FROM search_common_pairs", logger: logger)
        let keys = count.commonKeys
        if !keys.isEmpty {
            try await connection.query(
                "INSERT INTO search_common_pairs SELECT unnest(\(keys)::BIGINT[])", logger: logger)
        }
    }

    /// Counts the pairs of every place again and lists them as a first load does (the
    /// migration that brings the lists to a database that has places, and the benchmarks'
    /// copies); in the caller's transaction.
    package func rebuild(listedAtMost: Int = SearchPairs.listedAtMost) async throws {
        var count = SearchPairCount(listedAtMost: listedAtMost)
        let rows = try await connection.query("\(unescaped: Self.texts)", logger: logger)
        for try await (id, name, names, address) in rows.decode((Int64, String, String?, String?).self) {
            count.add(place: id, name: name, names: names, address: address)
        }
        try await connection.query("TRUNCATE place_search_pairs", logger: logger)
        try await copyListed(count)
        try await replaceCommon(with: count)
    }

    /// Whether one of `keys` is common (its places are not listed).
    static func isCommon(
        _ keys: [Int64], pool: PostgresPool, logger: Logger
    ) async throws -> Bool {
        for try await common in try await pool.query(
            "SELECT EXISTS (SELECT FROM search_common_pairs WHERE pair = ANY(\(keys)::BIGINT[]))", logger: logger
        ).decode(Bool.self) {
            return common
        }
        return false
    }
}
