import BurgerMapCore
import CGeoIndex
import Logging
import PostgresNIO

extension PostgresImportRun {
    // MARK: First load

    /// Whether `places` is empty: then a small first load locks it (readers wait for the load
    /// rather than reading an empty table, and no other writer can slip in) and loads it with
    /// `firstLoadInPlace()`.
    func lockForFirstLoad() async throws -> Bool {
        guard try await isEmpty() else { return false }
        try await execute("LOCK TABLE places IN ACCESS EXCLUSIVE MODE")
        // Another session may have written between the look and the lock.
        return try await isEmpty()
    }

    /// A small first load (`PostgresStagedFirstLoad.minimumBytes`) in the import's transaction:
    /// the indexes of `places` are dropped, the rows copied in (`copyFirstLoad`), and the indexes
    /// built again from the catalog's own definitions, one after another.
    mutating func firstLoadInPlace() async throws -> ImportSummary {
        var indexes: [String] = []
        let rows = try await connection.query(
            """
            SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index AS i
            WHERE i.indrelid = 'places'::regclass
              AND NOT EXISTS (SELECT FROM pg_constraint AS c WHERE c.conindid = i.indexrelid)
            ORDER BY i.indexrelid
            """, logger: logger)
        for try await (name, definition) in rows.decode((String, String).self) {
            // Names and definitions come from the catalog, never from a client.
            try await execute("DROP INDEX \(unescaped: name)")
            indexes.append(definition)
        }
        let summary = try await copyFirstLoad(into: "places")
        try await listSearchPairs()
        try await execute("SET LOCAL maintenance_work_mem = '512MB'")
        for definition in indexes {
            try await execute("\(unescaped: definition)")
        }
        if summary.inserted > 0 {
            try await PostgresPlaceCells(connection: connection, logger: logger).rebuild()
        }
        return summary
    }

    /// Lists the search pairs that `copyFirstLoad` counted and names their common ones (in
    /// the transaction that makes the loaded places the only ones, or before it: the rows name
    /// only loaded places).
    func listSearchPairs(namingCommon: Bool = true) async throws {
        guard let searchPairs else { return }
        let pairs = PostgresSearchPairs(connection: connection, logger: logger)
        try await pairs.copyListed(searchPairs)
        if namingCommon { try await pairs.replaceCommon(with: searchPairs) }
    }

    func isEmpty() async throws -> Bool {
        for try await empty in try await connection.query(
            "SELECT NOT EXISTS (SELECT 1 FROM places)", logger: logger
        ).decode(Bool.self) {
            return empty
        }
        return false
    }

    /// The rows of a first load copied into `table` (`places` with its indexes set aside, or
    /// `PostgresStagedFirstLoad`'s staging table, which has no index yet) through COPY: the server stores them while
    /// the reader parses the next ones. A repeated id is then deleted after its first row.
    ///
    /// Ids are handed out here, one per row in file order from `places`'s identity sequence, so
    /// that a row's id says its position; a deleted repeat leaves a gap, as SQLite's
    /// AUTOINCREMENT spends an id on each repeat.
    ///
    /// Measured on 200,000 generated rows (2 shared cores; the reading bounds the COPY):
    /// through a stage and one INSERT with the seven indexes up to date, 15.9 s (the INSERT
    /// 11.0 s, of which about 14 µs a row in each GiST index); through the stage with every
    /// index built afterwards, 11.3 s; straight into the table, every index built afterwards,
    /// 6.4 s (COPY 4.2 s), against 5.3 s for the SQLite engine.
    mutating func copyFirstLoad(into table: String) async throws -> ImportSummary {
        var firstID: Int64 = 0
        for try await id in try await connection.query(
            "SELECT nextval(pg_get_serial_sequence('places', 'id'))", logger: logger
        ).decode(Int64.self) {
            firstID = id
        }
        // The position of each copied row, by id - firstID.
        var positions: [Int32] = []
        var trailer = ByteBuffer()
        trailer.writeInteger(UInt8(ascii: "\t"))
        PostgresCopyText.append(feed.source, to: &trailer)
        trailer.writeString("\t\(time)\t\(time)")
        searchPairs = SearchPairCount()
        copiedCells = PlaceBatchFacts()
        try await copyRows(
            into: table, columns: ["id"] + Self.stageColumns.dropFirst() + ["source", "created_at", "updated_at"],
            trailer: trailer
        ) { position, _ in
            positions.append(Int32(clamping: position))
            return Int(firstID) + positions.count - 1
        }
        if positions.count > 1 {
            try await execute(
                "SELECT setval(pg_get_serial_sequence('places', 'id'), \(firstID + Int64(positions.count) - 1))")
        }

        // Every row after the first of each repeated id goes (the source is the same for all).
        var duplicates = 0
        var duplicateSkips: [(position: Int, skip: ImportSkip)] = []
        if idsMayRepeat {
            let gone = try await connection.query(
                """
                WITH repeated AS (
                    SELECT external_id, min(id) AS first FROM \(unescaped: table) WHERE external_id IS NOT NULL
                    GROUP BY external_id HAVING count(*) > 1
                ), gone AS (
                    DELETE FROM \(unescaped: table) AS p USING repeated AS r
                    WHERE p.external_id = r.external_id AND p.id <> r.first
                    RETURNING p.id, p.external_id, r.first
                )
                SELECT id, external_id, first, count(*) OVER () FROM gone
                ORDER BY id LIMIT \(Int64(ImportSummary.keptSkips))
                """, logger: logger)
            for try await (id, externalID, first, count) in gone.decode((Int64, String, Int64, Int64).self) {
                duplicates = Int(count)
                let position = Int(positions[Int(id - firstID)])
                let firstPosition = Int(positions[Int(first - firstID)])
                duplicateSkips.append(
                    (
                        position,
                        ImportSkip(
                            location: "\(feed.locationWord) \(position)",
                            reason: .duplicateID(externalID, first: "\(feed.locationWord) \(firstPosition)"))
                    ))
            }
        }
        return summary(
            inserted: positions.count - duplicates, updated: 0, unchanged: 0, duplicates: duplicates,
            duplicateSkips: duplicateSkips)
    }

    // MARK: Staging

    /// Streams the feed's rows into `table` (`columns`: the first, the number `key` gives a row
    /// from its position; then the fields of `stageColumns`; then `trailer`, the same for every
    /// row), counting skips on the way.
    mutating func copyRows(
        into table: String, columns: [String], trailer: ByteBuffer = ByteBuffer(),
        key: (_ position: Int, _ draft: PlaceDraft) -> Int
    ) async throws {
        var state = self
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(1 << 19)
            while let batch = try await state.feed.next() {
                for (position, item) in batch {
                    state.read += 1
                    switch item {
                    case .skip(let reason):
                        state.readerSkipped += 1
                        if state.readerSkips.count < ImportSummary.keptSkips {
                            state.readerSkips.append(
                                (
                                    position,
                                    ImportSkip(location: "\(state.feed.locationWord) \(position)", reason: reason)
                                ))
                        }
                    case .place(let draft):
                        if let id = draft.externalId {
                            state.rowsWithID += 1
                            if !state.idHashes.insert(id.hashValue).inserted { state.idsMayRepeat = true }
                        } else {
                            state.rowsWithoutID += 1
                        }
                        PostgresCopyText.appendRow(
                            key(position, draft), draft, countingPairsIn: &state.searchPairs, to: &buffer)
                        if state.copiedCells != nil {
                            let level = PlaceBatchFacts.finestCellLevel
                            state.copiedCells?.add(
                                cell: PlaceCells.cell(of: PlaceCells.key(lat: draft.lat, lng: draft.lng), at: level),
                                at: level)
                        }
                        buffer.writeImmutableBuffer(trailer)
                        buffer.writeInteger(UInt8(ascii: "\n"))
                    }
                }
                if buffer.readableBytes >= 1 << 18 {
                    try await writer.write(buffer)
                    buffer = ByteBuffer()
                    buffer.reserveCapacity(1 << 19)
                }
                state.feed.applied(rows: state.read)
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
        self = state
    }
}
