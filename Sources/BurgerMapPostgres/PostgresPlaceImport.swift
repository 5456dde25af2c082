import BurgerMap
import CGeoIndex
import Logging
import PostgresNIO

/// The PostgreSQL engine's side of an import (`PlaceImportSink`), with the SQLite engine's rules
/// and counts.
///
/// One transaction per file: a failed import rolls back, and a killed one loses its connection,
/// which rolls back too. Into an empty `places` the rows go straight in through COPY
/// (`firstLoad()`). Otherwise they stream through `COPY places_import_stage FROM STDIN` into a
/// temporary table (dropped at commit or rollback), and a few set-based statements apply them:
///
/// 1. Rows without an id: PostGIS finds every place within 25 m (plus a margin) whose name may be
///    the same (`places_import_near`); the importer decides each pair exactly as SQLite does and
///    settles who takes which place in file order (`settleNameMatches`), then copies the outcome
///    back into `places_import_named`.
/// 2. Repeated ids: rows whose id an earlier row of the file gave, or whose place a row without
///    an id took first, go to `places_import_dup` (`findDuplicates`).
/// 3. One UPDATE of every matched place whose fields differ; one INSERT of the rest, in file
///    order (so that new ids follow the file, as on SQLite).
///
/// Values from the file travel only as COPY data or bound parameters; the SQL text holds nothing
/// but the constants of this file (and, on a first load, index definitions from the catalog).
///
/// Unlike SQLite, PostgreSQL lets other writers work during an import (API edits, review counts).
/// One that creates a place with the same (source, id) as a new row of the file between the
/// matching and the INSERT makes the INSERT fail on the unique index, and the import roll back.
public struct PostgresPlaceImportSink: PlaceImportSink {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func importPlaces(from feed: PlaceImportFeed) async throws -> ImportSummary {
        let time = Timestamp.now().milliseconds
        let logger = logger
        do {
            return try await client.transaction(logger: logger) { connection in
                var run = PostgresImportRun(connection: connection, logger: logger, feed: feed, time: time)
                return try await run.run()
            }
        } catch {
            // postgres-nio describes every server error as a generic "Database error".
            if let (state, message) = PostgresEngineError.serverMessage(error) {
                throw PostgresEngineError.server("import: \(message) (SQLSTATE \(state))")
            }
            throw error
        }
    }
}

extension PostgresEngine {
    /// The engine's side of `PlaceImport`.
    public var placeImport: PostgresPlaceImportSink {
        PostgresPlaceImportSink(client: client, logger: logger)
    }
}

/// One import inside its transaction.
struct PostgresImportRun {
    let connection: PostgresConnection
    let logger: Logger
    let feed: PlaceImportFeed
    let time: Int64

    /// Items taken from the feed.
    private var read = 0
    /// Rows copied with and without an id.
    private var rowsWithID = 0
    private var rowsWithoutID = 0
    /// The hashes of the ids copied so far, and whether one came twice: when none did, no id
    /// repeats and the search for repeats is skipped (1.9 s of a 1,000,000-row first load).
    private var idHashes = Set<Int>()
    private var idsMayRepeat = false
    /// Skips the readers reported: how many, and the first `keptSkips` with their positions.
    private var readerSkipped = 0
    private var readerSkips: [(position: Int, skip: ImportSkip)] = []

    init(connection: PostgresConnection, logger: Logger, feed: PlaceImportFeed, time: Int64) {
        self.connection = connection
        self.logger = logger
        self.feed = feed
        self.time = time
    }

    /// The stage's columns, in COPY order.
    static let stageColumns = [
        "pos", "name", "lat", "lng", "address", "city", "province", "postal_code", "country", "phone", "category",
        "website", "external_id",
    ]
    /// The descriptive fields an import writes, as `places` and the stage name them.
    static let fields = [
        "name", "lat", "lng", "address", "city", "province", "postal_code", "country", "phone", "category",
        "website",
    ]

    /// Contract distances of at most this many metres make a name match.
    static let matchRadiusM = 25.0

    mutating func run() async throws -> ImportSummary {
        // Sorts and hashes over a million staged rows stay in memory.
        try await execute("SET LOCAL work_mem = '256MB'")
        if try await lockForFirstLoad() { return try await firstLoad() }
        try await execute(
            """
            CREATE TEMPORARY TABLE places_import_stage (
                pos BIGINT NOT NULL, name TEXT NOT NULL, lat DOUBLE PRECISION NOT NULL, lng DOUBLE PRECISION NOT NULL,
                address TEXT, city TEXT, province TEXT, postal_code TEXT, country TEXT, phone TEXT, category TEXT,
                website TEXT, external_id TEXT
            ) ON COMMIT DROP
            """)
        try await copyRows(into: "places_import_stage", columns: Self.stageColumns) { position, _ in position }
        try await execute("CREATE TEMPORARY TABLE places_import_named (pos BIGINT, place_id BIGINT) ON COMMIT DROP")
        let named = rowsWithoutID > 0 ? try await settleNameMatches() : 0
        if named > 0 { try await execute("ANALYZE places_import_named") }
        let (duplicates, duplicateSkips) =
            idsMayRepeat || (named > 0 && rowsWithID > 0) ? try await findDuplicates(named: named) : (0, [])
        let updated = rowsWithID > 0 || named > 0 ? try await updateMatches(named: named, duplicates: duplicates) : 0
        let inserted = try await insertNew(named: named, duplicates: duplicates)
        // Every row with an id that repeats none matched a place or was inserted; so did every
        // row without one.
        let matched = rowsWithID - duplicates - inserted.withID + named
        return summary(
            inserted: inserted.all, updated: updated, unchanged: matched - updated, duplicates: duplicates,
            duplicateSkips: duplicateSkips)
    }

    private func summary(
        inserted: Int, updated: Int, unchanged: Int, duplicates: Int,
        duplicateSkips: [(position: Int, skip: ImportSkip)]
    ) -> ImportSummary {
        var summary = ImportSummary()
        summary.read = read
        summary.inserted = inserted
        summary.updated = updated
        summary.unchanged = unchanged
        summary.skipped = readerSkipped + duplicates
        summary.skips = (readerSkips + duplicateSkips).sorted { $0.position < $1.position }
            .prefix(ImportSummary.keptSkips).map(\.skip)
        return summary
    }

    private func execute(_ query: PostgresQuery) async throws {
        try await connection.query(query, logger: logger)
    }

    // MARK: First load

    /// Whether `places` is empty: then this import locks it (readers wait for the first load
    /// rather than reading an empty table, and no other writer can slip in) and loads it with
    /// `firstLoad()`. The SQLite engine, too, loads an empty table its own way (it leaves WAL).
    private func lockForFirstLoad() async throws -> Bool {
        guard try await isEmpty() else { return false }
        try await execute("LOCK TABLE places IN ACCESS EXCLUSIVE MODE")
        // Another session may have written between the look and the lock.
        return try await isEmpty()
    }

    private func isEmpty() async throws -> Bool {
        for try await empty in try await connection.query(
            "SELECT NOT EXISTS (SELECT 1 FROM places)", logger: logger
        ).decode(Bool.self) {
            return empty
        }
        return false
    }

    /// A load into an empty table: nothing can match, so the rows go straight into `places`
    /// through COPY (the server stores them while the reader parses the next ones); a repeated
    /// id is then deleted after its first row.
    ///
    /// The indexes that build by sorting (the B-trees, and the geometry GiST, whose operator
    /// class has sort support) are set aside for the COPY and built again afterwards from the
    /// catalog's own definitions, as the SQLite engine sets SpatiaLite's triggers aside and puts
    /// their SQL back. An index that would be built row by row anyway (the geography GiST: no
    /// sort support in PostGIS 3.3) stays, and is kept up to date during the COPY, where its
    /// work overlaps with the reading. Building an index also records the table's size for
    /// the planner; autovacuum analyses the rows soon after.
    ///
    /// Ids are handed out here, one per row in file order from the identity sequence, so that
    /// a row's id says its position; a deleted repeat leaves a gap, as SQLite's AUTOINCREMENT
    /// spends an id on each repeat.
    ///
    /// Measured on 200,000 generated rows (2 shared cores; the reading bounds the COPY):
    /// through the stage and one INSERT with the seven indexes up to date, 15.9 s (the INSERT
    /// 11.0 s, of which about 14 µs a row in each GiST index); through the stage with every
    /// index built afterwards, 11.3 s; straight into `places`, every index built afterwards,
    /// 9.5 s (of which 3.3 s building the geography GiST); as here, 6.4 s (COPY 4.2 s, the
    /// rest building the other indexes), against 5.3 s for the SQLite engine.
    private mutating func firstLoad() async throws -> ImportSummary {
        var indexes: [(name: String, definition: String)] = []
        let rows = try await connection.query(
            """
            SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
            FROM pg_index AS i
            JOIN pg_class AS index ON index.oid = i.indexrelid
            JOIN pg_am AS am ON am.oid = index.relam
            JOIN pg_opclass AS class ON class.oid = i.indclass[0]
            WHERE i.indrelid = 'places'::regclass
              AND NOT EXISTS (SELECT FROM pg_constraint AS c WHERE c.conindid = i.indexrelid)
              AND (am.amname = 'btree' OR EXISTS (
                  SELECT FROM pg_amproc AS p WHERE p.amprocfamily = class.opcfamily AND p.amprocnum = 11))
            ORDER BY i.indexrelid
            """, logger: logger)
        for try await (name, definition) in rows.decode((String, String).self) {
            indexes.append((name, definition))
        }
        // Names and definitions come from the catalog, never from a client.
        for index in indexes {
            try await execute("DROP INDEX \(unescaped: index.name)")
        }

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
        CopyText.append(feed.source, to: &trailer)
        trailer.writeString("\t\(time)\t\(time)")
        try await copyRows(
            into: "places", columns: ["id"] + Self.stageColumns.dropFirst() + ["source", "created_at", "updated_at"],
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
                    SELECT external_id, min(id) AS first FROM places WHERE external_id IS NOT NULL
                    GROUP BY external_id HAVING count(*) > 1
                ), gone AS (
                    DELETE FROM places AS p USING repeated AS r
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

        try await execute("SET LOCAL maintenance_work_mem = '512MB'")
        for index in indexes {
            try await execute("\(unescaped: index.definition)")
        }
        return summary(
            inserted: positions.count - duplicates, updated: 0, unchanged: 0, duplicates: duplicates,
            duplicateSkips: duplicateSkips)
    }

    // MARK: Staging

    /// Streams the feed's rows into `table` (`columns`: the first, the number `key` gives a row
    /// from its position; then the fields of `stageColumns`; then `trailer`, the same for every
    /// row), counting skips on the way.
    private mutating func copyRows(
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
                        CopyText.appendRow(key(position, draft), draft, to: &buffer)
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

    // MARK: Matching by name

    /// Settles which place each row without an id takes, exactly as the SQLite engine would,
    /// and copies the matches into `places_import_named`; answers how many there are.
    ///
    /// PostGIS finds the candidates: places within 25 m on its sphere, plus the margin that
    /// `PostgresNearestSearch` measured between its distance and the contract's haversine
    /// (1e-7 of the distance and 1 mm), so no place within 25 m by `bm_haversine_m` escapes.
    /// Names are compared in SQL only when both are plain ASCII (where lower-casing A–Z is all
    /// `String.lowercased()` does, and equal bytes are equal strings); any other name goes to the
    /// importer, which compares `lowercased()` as Swift strings (canonical equivalence, as on
    /// SQLite). Each candidate's distance is then `bm_haversine_m`, the function SQLite calls,
    /// so a place at 25.000001 m never matches on one engine and not the other.
    ///
    /// The order of the file matters when rows compete for a place (a row takes the nearest
    /// place no earlier row took, and an id row's place taken first by a name makes that id a
    /// duplicate), so the competition runs here in file order, over the candidates only; a
    /// fresh import has none. This is the one rule not decided in SQL: the exact distance and
    /// Swift's string comparison are the importer's, and the file order makes it sequential.
    /// Measured (2 shared cores, busy): a re-import of 200,000 rows without ids into 1,000,000
    /// places, every row finding its place, took 34.8 s, of which the candidate query 25.0 s
    /// (one GiST probe per row, about 125 µs each there; a box on the geometry index was no
    /// faster) and fetching and settling the pairs 2.7 s; the SQLite engine took 22.0 s for the
    /// same file on the same machine.
    private mutating func settleNameMatches() async throws -> Int {
        let radius = PostgresNearestSearch.upperBound(contractDistance: Self.matchRadiusM)
        try await execute(
            """
            CREATE TEMPORARY TABLE places_import_near ON COMMIT DROP AS
            SELECT s.pos, p.id, s.name AS row_name, p.name AS place_name, s.lat AS row_lat, s.lng AS row_lng,
                p.lat, p.lng, p.source = \(feed.source) AND p.external_id IS NOT NULL AS by_id
            FROM places_import_stage AS s
            JOIN places AS p
                ON ST_DWithin(p.geog, ST_SetSRID(ST_MakePoint(s.lng, s.lat), 4326)::geography, \(radius), false)
            WHERE s.external_id IS NULL
              AND (translate(p.name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
                    = translate(s.name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
                OR octet_length(p.name) <> char_length(p.name) OR octet_length(s.name) <> char_length(s.name))
            """)
        // Each row's candidates, nearest first (ties by the lower id), as SQLite picks them: one
        // flat list, row k's run of it from starts[k] to starts[k + 1].
        var positions: [Int64] = []
        var starts: [Int] = []
        var candidates: [(distance: Double, id: Int64)] = []
        var claimable = false
        let pairs = try await connection.query(
            """
            SELECT pos, id, row_name, place_name, row_lat, row_lng, lat, lng, by_id FROM places_import_near
            ORDER BY pos
            """, logger: logger)
        var (lastPosition, rowName): (Int64, String) = (-1, "")
        for try await (position, id, name, placeName, rowLat, rowLng, lat, lng, byID) in pairs.decode(
            (Int64, Int64, String, String, Double, Double, Double, Double, Bool?).self)
        {
            if position != lastPosition { (lastPosition, rowName) = (position, name.lowercased()) }
            let distance = bm_haversine_m(rowLat, rowLng, lat, lng)
            guard distance <= Self.matchRadiusM, placeName.lowercased() == rowName else { continue }
            if positions.last != position {
                positions.append(position)
                starts.append(candidates.count)
            }
            candidates.append((distance, id))
            claimable = claimable || byID == true
        }
        guard !positions.isEmpty else { return 0 }
        starts.append(candidates.count)
        for row in positions.indices where starts[row + 1] - starts[row] > 1 {
            candidates[starts[row]..<starts[row + 1]].sort { $0 < $1 }
        }

        // The first row of the file that names each candidate by id claims it at that row.
        var idClaims: [(position: Int64, id: Int64)] = []
        if claimable, rowsWithID > 0 {
            let claims = try await connection.query(
                """
                SELECT min(s.pos), p.id
                FROM places AS p JOIN places_import_stage AS s ON s.external_id = p.external_id
                WHERE p.source = \(feed.source) AND p.id IN (SELECT id FROM places_import_near)
                GROUP BY p.id ORDER BY 1
                """, logger: logger)
            for try await (position, id) in claims.decode((Int64, Int64).self) { idClaims.append((position, id)) }
        }

        // In file order: a row without an id takes its nearest place not yet taken.
        var taken = Set<Int64>()
        var matches: [(position: Int64, id: Int64)] = []
        var nextClaim = 0
        for (row, position) in positions.enumerated() {
            while nextClaim < idClaims.count, idClaims[nextClaim].position < position {
                taken.insert(idClaims[nextClaim].id)
                nextClaim += 1
            }
            if let place = candidates[starts[row]..<starts[row + 1]].first(where: { !taken.contains($0.id) }) {
                taken.insert(place.id)
                matches.append((position, place.id))
            }
        }
        try await connection.copyFrom(table: "places_import_named", columns: ["pos", "place_id"], logger: logger) {
            writer in
            var buffer = ByteBuffer()
            for (index, match) in matches.enumerated() {
                buffer.writeString("\(match.position)\t\(match.id)\n")
                if buffer.readableBytes >= 1 << 18 || index == matches.count - 1 {
                    try await writer.write(buffer)
                    buffer = ByteBuffer()
                }
            }
        }
        return matches.count
    }

    // MARK: Duplicate ids

    /// Rows whose id an earlier row gave (the first of them keeps it), or whose place a row
    /// without an id took before the first row with that id: into `places_import_dup`, with the
    /// row they repeat. Answers how many, and the first `keptSkips` as skips.
    private func findDuplicates(named: Int) async throws -> (count: Int, first: [(position: Int, skip: ImportSkip)]) {
        // A place taken by name is reached by id through its (source, external_id).
        let takenByName =
            named > 0
            ? """
            SELECT p.external_id, n.pos FROM places_import_named AS n JOIN places AS p ON p.id = n.place_id
            WHERE p.source = $1 AND p.external_id IS NOT NULL
            """
            : "SELECT NULL::text AS external_id, NULL::bigint AS pos WHERE false"
        let repeated =
            idsMayRepeat
            ? """
            SELECT external_id, min(pos) AS first FROM places_import_stage
            WHERE external_id IS NOT NULL GROUP BY external_id HAVING count(*) > 1
            """
            : "SELECT NULL::text AS external_id, NULL::bigint AS first WHERE false"
        var query = PostgresQuery(
            unsafeSQL: """
                CREATE TEMPORARY TABLE places_import_dup ON COMMIT DROP AS
                WITH repeated AS (
                \(repeated)
                ), taken AS (
                \(takenByName)
                )
                SELECT s.pos, s.external_id, coalesce(t.pos, r.first) AS first
                FROM places_import_stage AS s
                LEFT JOIN repeated AS r ON r.external_id = s.external_id
                LEFT JOIN taken AS t ON t.external_id = s.external_id
                WHERE s.external_id IS NOT NULL AND (t.pos IS NOT NULL OR s.pos <> r.first)
                """)
        if named > 0 { query.binds.append(feed.source) }
        try await execute(query)
        var count = 0
        var skips: [(position: Int, skip: ImportSkip)] = []
        let rows = try await connection.query(
            """
            SELECT pos, external_id, first, count(*) OVER () FROM places_import_dup
            ORDER BY pos LIMIT \(Int64(ImportSummary.keptSkips))
            """, logger: logger)
        for try await (position, id, first, total) in rows.decode((Int64, String, Int64, Int64).self) {
            count = Int(total)
            skips.append(
                (
                    Int(position),
                    ImportSkip(
                        location: "\(feed.locationWord) \(position)",
                        reason: .duplicateID(id, first: "\(feed.locationWord) \(first)"))
                ))
        }
        if count > 0 { try await execute("ANALYZE places_import_dup") }
        return (count, skips)
    }

    // MARK: Applying

    /// Updates every matched place whose fields differ from its row; answers how many changed.
    /// Rows with an id join their place by (source, id), the others through
    /// `places_import_named`: one join each, straight in the UPDATE (measured on a re-import of
    /// 1,000,000 unchanged rows: 11.4 s with the matches gathered first and joined to `places`
    /// again by id, about half with one join).
    ///
    /// "Differ" is `PlaceDraft`'s `==`: Swift compares strings by canonical equivalence, so two
    /// texts whose bytes differ count as the same when their NFC forms are equal (`normalize`,
    /// evaluated only for the rare fields whose bytes differ). A place matched by name keeps its
    /// source and id; one matched by id has them already.
    private func updateMatches(named: Int, duplicates: Int) async throws -> Int {
        let assignments = Self.fields.map { "\($0) = s.\($0)" }.joined(separator: ", ")
        let differs = Self.fields.map { field in
            field == "lat" || field == "lng"
                ? "p.\(field) <> s.\(field)"
                : """
                (p.\(field) IS DISTINCT FROM s.\(field) AND (p.\(field) IS NULL OR s.\(field) IS NULL
                    OR normalize(p.\(field), NFC) <> normalize(s.\(field), NFC)))
                """
        }.joined(separator: "\n OR ")
        var updated = 0
        if rowsWithID > 0 {
            let notDuplicate =
                duplicates > 0 ? "AND NOT EXISTS (SELECT FROM places_import_dup AS d WHERE d.pos = s.pos)" : ""
            updated += try await count(
                """
                WITH u AS (
                    UPDATE places AS p SET \(assignments), updated_at = $2
                    FROM places_import_stage AS s
                    WHERE p.source = $1 AND p.external_id = s.external_id \(notDuplicate) AND (\(differs))
                    RETURNING 1
                )
                SELECT count(*) FROM u
                """)
        }
        if named > 0 {
            updated += try await count(
                """
                WITH u AS (
                    UPDATE places AS p SET \(assignments), updated_at = $2
                    FROM places_import_named AS n JOIN places_import_stage AS s ON s.pos = n.pos
                    WHERE p.id = n.place_id AND (\(differs))
                    RETURNING 1
                )
                SELECT count(*) FROM u
                """)
        }
        return updated
    }

    /// The count a statement of this file answers, with the import's source as $1 and its time
    /// as $2 (bound; either may go unused).
    private func count(_ sql: String) async throws -> Int {
        var query = PostgresQuery(unsafeSQL: sql)
        query.binds.append(feed.source)
        query.binds.append(time)
        for try await count in try await connection.query(query, logger: logger).decode(Int64.self) {
            return Int(count)
        }
        return 0
    }

    /// Inserts every row that matched nothing and repeats no earlier id, in file order; answers
    /// how many, and how many of them have an id.
    private func insertNew(named: Int, duplicates: Int) async throws -> (all: Int, withID: Int) {
        var conditions: [String] = []
        if duplicates > 0 { conditions.append("NOT EXISTS (SELECT FROM places_import_dup AS d WHERE d.pos = s.pos)") }
        if named > 0 { conditions.append("NOT EXISTS (SELECT FROM places_import_named AS n WHERE n.pos = s.pos)") }
        if rowsWithID > 0 {
            conditions.append(
                "NOT EXISTS (SELECT FROM places AS p WHERE p.source = $1 AND p.external_id = s.external_id)")
        }
        let columns = Self.fields.joined(separator: ", ")
        var query = PostgresQuery(
            unsafeSQL: """
                WITH i AS (
                    INSERT INTO places (\(columns), source, external_id, created_at, updated_at)
                    SELECT \(Self.fields.map { "s." + $0 }.joined(separator: ", ")), $1, s.external_id, $2, $2
                    FROM places_import_stage AS s
                    WHERE \(conditions.isEmpty ? "true" : conditions.joined(separator: " AND "))
                    ORDER BY s.pos
                    RETURNING external_id
                )
                SELECT count(*), count(external_id) FROM i
                """)
        query.binds.append(feed.source)
        query.binds.append(time)
        for try await (all, withID) in try await connection.query(query, logger: logger).decode((Int64, Int64).self) {
            return (Int(all), Int(withID))
        }
        return (0, 0)
    }
}

/// PostgreSQL's COPY text format: columns separated by tabs, rows ended by a newline, `\N` for
/// NULL, and backslash escapes for the backslash and the three control characters that would
/// break the layout (the field rules keep every other control character out).
enum CopyText {
    /// A row's leading number and fields, without the end of the line.
    static func appendRow(_ position: Int, _ draft: PlaceDraft, to buffer: inout ByteBuffer) {
        appendInteger(position, to: &buffer)
        tab(&buffer)
        append(draft.name, to: &buffer)
        tab(&buffer)
        // Swift writes the shortest text that reads back as the same double; PostgreSQL reads
        // it exactly.
        buffer.writeString(draft.lat.description)
        tab(&buffer)
        buffer.writeString(draft.lng.description)
        tab(&buffer)
        append(draft.address, to: &buffer)
        tab(&buffer)
        append(draft.city, to: &buffer)
        tab(&buffer)
        append(draft.province, to: &buffer)
        tab(&buffer)
        append(draft.postalCode, to: &buffer)
        tab(&buffer)
        append(draft.country, to: &buffer)
        tab(&buffer)
        append(draft.phone, to: &buffer)
        tab(&buffer)
        append(draft.category, to: &buffer)
        tab(&buffer)
        append(draft.website, to: &buffer)
        tab(&buffer)
        append(draft.externalId, to: &buffer)
    }

    /// An integer in decimal, without making a string of it.
    static func appendInteger(_ value: Int, to buffer: inout ByteBuffer) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for any Int
        withUnsafeMutableBytes(of: &digits) { bytes in
            var rest = value.magnitude
            var index = bytes.count
            repeat {
                index -= 1
                bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            if value < 0 {
                index -= 1
                bytes[index] = UInt8(ascii: "-")
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[index...]))
        }
    }

    private static func tab(_ buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\t"))
    }

    static func append(_ text: String?, to buffer: inout ByteBuffer) {
        guard var text else {
            buffer.writeStaticString("\\N")
            return
        }
        text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
                buffer.writeBytes(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
    }
}
