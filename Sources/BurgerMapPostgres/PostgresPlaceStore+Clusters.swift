import BurgerMap
import PostgresNIO

extension PostgresPlaceStore {
    /// The places of a box grouped into the cells of a zoom level, counted exactly
    /// (`ClusterBuilder` says what to read). Its reads share one snapshot (REPEATABLE READ),
    /// so that a place written between two of them is counted once or not at all.
    public func clusters(_ query: ClusterQuery) async throws -> ClusterResult {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            let cells = PostgresPlaceCells(connection: connection, logger: logger)
            var builder = ClusterBuilder(query)
            while let need = builder.need {
                switch need {
                case .rows(let level, let ids):
                    builder.receive(rows: try await cells.rows(ids.map { CellID(level: level, cell: $0) }))
                case .members(let ranges, let reviewedOnly):
                    builder.receive(members: try await cells.members(in: ranges, reviewedOnly: reviewedOnly))
                case .places(let ids):
                    builder.receive(
                        places: try await Self.places(
                            connection.query(
                                "SELECT \(unescaped: Self.columns) FROM places WHERE id = ANY(\(ids))", logger: logger))
                    )
                }
            }
            return builder.result
        }
    }
}

extension PostgresPlaceStore {
    /// Builds `place_cells` anew from the places (after places were written around the store,
    /// as the benchmarks' bulk copy does).
    public func rebuildPlaceCells() async throws {
        try await client.transaction(logger: logger) { connection in
            try await PostgresPlaceCells(connection: connection, logger: logger).rebuild()
        }
    }
}
