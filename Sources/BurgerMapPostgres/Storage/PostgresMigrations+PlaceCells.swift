import BurgerMapCore
import Logging
import PostgresNIO

extension PostgresMigrations {
    /// SQLite's v8-place-cells: every place's Web Mercator key (`PlaceCells.key`, computed in
    /// Swift on every path), an index over it that covers what a cluster counts, one of the
    /// reviewed places, and `place_cells`, the counts, sums and bounds of every cell that holds
    /// at least `PlaceCells.threshold` places (`PostgresPlaceCells` keeps them exact).
    static let placeCells: [String] = [
        "ALTER TABLE places ADD COLUMN cell BIGINT",
        """
        CREATE TABLE place_cells (
            level INTEGER NOT NULL CHECK (level BETWEEN \(PlaceCells.minLevel) AND \(PlaceCells.maxLevel)),
            cell BIGINT NOT NULL CHECK (cell >= 0),
            places BIGINT NOT NULL CHECK (places >= \(PlaceCells.threshold)),
            lat_sum DOUBLE PRECISION NOT NULL,
            lng_sum DOUBLE PRECISION NOT NULL,
            lat_min DOUBLE PRECISION NOT NULL,
            lat_max DOUBLE PRECISION NOT NULL,
            lng_min DOUBLE PRECISION NOT NULL,
            lng_max DOUBLE PRECISION NOT NULL,
            reviewed BIGINT NOT NULL CHECK (reviewed BETWEEN 0 AND places),
            reviewed_lat_sum DOUBLE PRECISION NOT NULL,
            reviewed_lng_sum DOUBLE PRECISION NOT NULL,
            reviewed_lat_min DOUBLE PRECISION NOT NULL,
            reviewed_lat_max DOUBLE PRECISION NOT NULL,
            reviewed_lng_min DOUBLE PRECISION NOT NULL,
            reviewed_lng_max DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (level, cell)
        )
        """,
    ]

    /// Gives the places stored before v6-place-cells their keys, then builds the indexes and the
    /// rows.
    @Sendable static func keyExistingPlaces(_ connection: PostgresConnection, _ logger: Logger) async throws {
        var ids: [Int64] = []
        var keys: [Int64] = []
        let rows = try await connection.query("SELECT id, lat, lng FROM places", logger: logger)
        for try await (id, lat, lng) in rows.decode((Int64, Double, Double).self) {
            ids.append(id)
            keys.append(PlaceCells.key(lat: lat, lng: lng))
        }
        for start in stride(from: 0, to: ids.count, by: 10_000) {
            let end = min(start + 10_000, ids.count)
            let (batchIDs, batchKeys) = (Array(ids[start..<end]), Array(keys[start..<end]))
            try await connection.query(
                """
                UPDATE places AS p SET cell = k.cell
                FROM unnest(\(batchIDs)::BIGINT[], \(batchKeys)::BIGINT[]) AS k(id, cell) WHERE p.id = k.id
                """, logger: logger)
        }
        try await connection.query(
            "CREATE INDEX places_by_cell ON places (cell) INCLUDE (lat, lng, review_count, id)", logger: logger)
        try await connection.query(
            "CREATE INDEX places_reviewed_by_cell ON places (cell) WHERE review_count > 0", logger: logger)
        try await PostgresPlaceCells(connection: connection, logger: logger).rebuild()
    }
}
