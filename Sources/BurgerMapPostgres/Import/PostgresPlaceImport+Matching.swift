import BurgerMapCore
import CGeoIndex
import Logging
import PostgresNIO

extension PostgresImportRun {
    // MARK: Matching by name

    /// Settles which place each row without an id takes, exactly as the SQLite engine would,
    /// and copies the matches into `places_import_named`; answers how many there are.
    ///
    /// The geometry index finds the candidates: places inside the bounding box of the 25 m cap
    /// around the row (latitude ± the radius as an angle, longitude ± the cap's half-width
    /// there, both widened by 1e-9; every longitude when the cap reaches a pole or crosses the
    /// antimeridian, which only a row within 25 m of either can), so no place within 25 m by
    /// `bm_haversine_m` escapes.
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
    /// (one probe of the geography GiST per row, about 125 µs each there; a box on the geometry
    /// index, used now, was no slower) and fetching and settling the pairs 2.7 s; the SQLite engine took 22.0 s for the
    /// same file on the same machine.
    mutating func settleNameMatches() async throws -> Int {
        // The radius as an angle, in degrees.
        let reach = PlaceMatching.radiusM / Geodesy.earthRadiusM * (1 + PostgresNearestWalk.slack) * 180 / .pi
        try await execute(
            """
            CREATE TEMPORARY TABLE places_import_near ON COMMIT DROP AS
            SELECT s.pos, p.id, s.name AS row_name, p.name AS place_name, s.lat AS row_lat, s.lng AS row_lng,
                p.lat, p.lng, p.source = \(feed.source) AND p.external_id IS NOT NULL AS by_id
            FROM places_import_stage AS s
            CROSS JOIN LATERAL (
                SELECT CASE WHEN abs(s.lat) + \(reach) >= 90 THEN 360
                    ELSE degrees(asin(least(1, sin(radians(\(reach))) / cos(radians(s.lat))))) * (1 + 1e-9) END AS w
            ) AS cap
            JOIN places AS p
                ON \(unescaped: PostgresPlaceStore.point(of: "p")) && CASE WHEN s.lng - cap.w < -180 OR s.lng + cap.w > 180
                    THEN ST_MakeEnvelope(-180, s.lat - \(reach), 180, s.lat + \(reach), 4326)
                    ELSE ST_MakeEnvelope(s.lng - cap.w, s.lat - \(reach), s.lng + cap.w, s.lat + \(reach), 4326) END
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
            if position != lastPosition { (lastPosition, rowName) = (position, PlaceMatching.nameKey(name)) }
            let distance = Geodesy.distanceM(rowLat, rowLng, lat, lng)
            guard PlaceMatching.matches(rowKey: rowName, candidateName: placeName, distanceM: distance) else {
                continue
            }
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
    func findDuplicates(named: Int) async throws -> (count: Int, first: [(position: Int, skip: ImportSkip)]) {
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
    ///
    /// Each updated place's id goes to `places_import_written` (its search pairs are listed
    /// after), and a moved place's old cell (of the finest tile zoom) to `places_import_moved`: its old
    /// map tiles changed too, and the import's event names them. `before` is the same table in
    /// the statement's snapshot, the one way an UPDATE sees the values it replaces.
    func updateMatches(named: Int, duplicates: Int) async throws -> Int {
        let assignments = Self.fields.map { "\($0) = s.\($0)" }.joined(separator: ", ")
        // The cell follows lat and lng.
        let differs = Self.fields.filter { $0 != "cell" }.map { field in
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
                    FROM places_import_stage AS s, places AS before
                    WHERE p.source = $1 AND p.external_id = s.external_id \(notDuplicate) AND (\(differs))
                        AND before.id = p.id
                    RETURNING p.id, CASE WHEN before.cell <> p.cell THEN before.cell END AS moved
                ), m AS (
                    \(Self.keepMoved)
                ), w AS (
                    INSERT INTO places_import_written SELECT id FROM u
                )
                SELECT count(*) FROM u
                """)
        }
        if named > 0 {
            updated += try await count(
                """
                WITH u AS (
                    UPDATE places AS p SET \(assignments), updated_at = $2
                    FROM places_import_named AS n JOIN places_import_stage AS s ON s.pos = n.pos, places AS before
                    WHERE p.id = n.place_id AND (\(differs)) AND before.id = p.id
                    RETURNING p.id, CASE WHEN before.cell <> p.cell THEN before.cell END AS moved
                ), m AS (
                    \(Self.keepMoved)
                ), w AS (
                    INSERT INTO places_import_written SELECT id FROM u
                )
                SELECT count(*) FROM u
                """)
        }
        return updated
    }

    /// Keeps the moved places' old cells of `updateMatches`' `u` (at the finest tile zoom).
    static let keepMoved = """
        INSERT INTO places_import_moved SELECT DISTINCT moved >> \(2 * (PlaceCells.keyLevel - PlaceBatchFacts.finestCellLevel))
        FROM u WHERE moved IS NOT NULL
        """

    /// The count a statement of this file answers, with the import's source as $1 and its time
    /// as $2 (bound; either may go unused).
    func count(_ sql: String) async throws -> Int {
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
    func insertNew(named: Int, duplicates: Int) async throws -> (all: Int, withID: Int) {
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
                    RETURNING id, external_id
                ), w AS (
                    INSERT INTO places_import_written SELECT id FROM i
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
