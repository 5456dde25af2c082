import BurgerMapCore
import PostgresNIO

extension PostgresPlaceStore {
    /// The places of a box grouped into the cells of a zoom level, counted exactly
    /// (`ClusterBuilder` says what to read). Its reads share one snapshot (REPEATABLE READ),
    /// so that a place written between two of them is counted once or not at all.
    public func clusters(_ query: ClusterQuery) async throws -> ClusterResult {
        try await pool.readOnlySnapshot(logger: logger) { connection in
            // The planner cannot know that each key range holds a few places, prices a view's
            // few hundred ranges at millions of rows and compiles them with JIT: 300 ms of a
            // 350 ms view (EXPLAIN ANALYZE), against 10 ms of reading. Set here rather than as a
            // connection's startup parameter: PgBouncer refuses startup parameters it does not
            // track unless told to ignore them, and the statement costs about 0.1 ms (JIT off at
            // connection start instead, builds alternating on one server: within the noise).
            try await connection.query("SET LOCAL jit = off", logger: logger)
            var builder = ClusterBuilder(query)
            try await answer(&builder, on: connection)
            return builder.result
        }
    }

    /// Answers what a cluster or tile builder asks until it asks nothing more.
    func answer<Builder: CellReadingBuilder>(_ builder: inout Builder, on connection: PostgresConnection)
        async throws
    {
        let cells = PostgresPlaceCells(connection: connection, logger: logger)
        let reviewedOnly = builder.reviewedOnly
        while let need = builder.need {
            switch need {
            case .rows(let level, let ids):
                builder.receive(
                    rows: try await cells.rows(level: level, runs: PlaceCells.runs(ids), reviewedOnly: reviewedOnly))
            case .members(let ranges, let reviewedOnly):
                builder.receive(
                    members: try await cells.members(in: ranges, reviewedOnly: reviewedOnly, within: builder.membersBox)
                )
            case .places(let ids):
                builder.receive(
                    places: try await Self.places(
                        connection.query(
                            "SELECT \(unescaped: Self.columns) FROM places WHERE id = ANY(\(ids))", logger: logger)))
            }
        }
    }
}

extension PostgresPlaceStore {
    /// Builds `place_cells` anew from the places (after places were written around the store,
    /// as the benchmarks' bulk copy does).
    public func rebuildPlaceCells() async throws {
        try await pool.transaction(logger: logger) { connection in
            try await PostgresPlaceCells(connection: connection, logger: logger).rebuild()
        }
    }
}

extension PostgresPlaceStore {
    /// Drops the two cell indexes and builds them again (the cluster benchmark times what they
    /// cost a first load, which builds them once after its COPY).
    public func rebuildCellIndexes() async throws {
        try await pool.transaction(logger: logger) { connection in
            try await connection.query("SET LOCAL maintenance_work_mem = '512MB'", logger: logger)
            try await connection.query("DROP INDEX places_by_cell, places_reviewed_by_cell", logger: logger)
            try await connection.query(
                "CREATE INDEX places_by_cell ON places (cell) INCLUDE (lat, lng, review_count, id)", logger: logger)
            try await connection.query(
                "CREATE INDEX places_reviewed_by_cell ON places (cell) WHERE review_count > 0", logger: logger)
        }
    }
}
