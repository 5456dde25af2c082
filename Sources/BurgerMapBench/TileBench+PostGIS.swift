import BurgerMapCore
import BurgerMapPostgres
import Logging
import PostgresNIO

/// The baseline of the tile benchmark: the SQL a PostGIS user would write for a tile with the
/// same exact clusters, one prepared statement per tile, PostGIS encoding the MVT
/// (`ST_AsMVTGeom`, `ST_AsMVT`, two layers concatenated).
///
/// Both forms read the tile's places by key range on `places.cell` (the `places_by_cell` index,
/// which covers `lat`, `lng` and `id`), group them by their cell at level z + 2, and read the
/// names and categories only of the places alone in a cell (by id): what a careful user would
/// write. `plain` has nothing else, so a tile of a low zoom groups every place it holds (all
/// 1,000,000 at zoom 0). `withCells` is given what the service has: the `place_cells` rows,
/// taken for the cells that have one, the places grouped only in the others.
struct PostGISTiles: Sendable {
    let pool: PostgresPool
    let logger = Logger(label: "burgermap-bench.postgis-tiles")

    func plain(address: TileAddress) async throws -> [UInt8] {
        let range = PlaceCells.range(of: address.cell.cell, at: address.z)
        return try await run(PlainTile(first: range.lowerBound, last: range.upperBound, address: address))
    }

    func withCells(address: TileAddress) async throws -> [UInt8] {
        try await run(CellsTile(address: address))
    }

    /// A prepared `SELECT 1` through the same pool: one round trip and nothing else.
    func selectOne() async throws {
        for try await _ in try await pool.execute(SelectOne(), logger: logger) {}
    }

    /// Prints the plans PostgreSQL runs for the plain form at `low` and the form with cells at
    /// `high` (EXPLAIN ANALYZE, with the statements' own text and values): what each reads.
    func explain(_ low: TileAddress, _ high: TileAddress) async throws {
        let range = PlaceCells.range(of: low.cell.cell, at: low.z)
        let plans: [(String, String, PostgresBindings)] = [
            (
                "plain, \(low)", PlainTile.sql,
                try PlainTile(first: range.lowerBound, last: range.upperBound, address: low).makeBindings()
            ),
            ("with cells, \(high)", CellsTile.sql, try CellsTile(address: high).makeBindings()),
        ]
        for (title, sql, bindings) in plans {
            print("plan of the PostGIS statement, \(title):")
            let rows = try await pool.query(
                PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, COSTS OFF) " + sql, binds: bindings), logger: logger)
            for try await line in rows.decode(String.self) { print("  " + line) }
        }
    }

    private func run<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [UInt8]
    where Statement.Row == ByteBuffer {
        var bytes: [UInt8] = []
        for try await buffer in try await pool.execute(statement, logger: logger) {
            bytes = Array(buffer.readableBytesView)
        }
        return bytes
    }

    /// The two layers from `g` (c: the cell at level z + 2, n: its places, lat and lng: their
    /// mean, id: the place when n is 1), tile z/x/y in $4, $5, $6.
    static let layers = """
        clusters AS (
            SELECT ST_AsMVTGeom(ST_Transform(ST_SetSRID(ST_MakePoint(lng, lat), 4326), 3857),
                ST_TileEnvelope($4::int, $5::int, $6::int), 4096, 0) AS geom, c AS fid, n AS count
            FROM g WHERE n > 1
        ),
        singles AS (
            SELECT ST_AsMVTGeom(ST_Transform(ST_SetSRID(ST_MakePoint(p.lng, p.lat), 4326), 3857),
                ST_TileEnvelope($4::int, $5::int, $6::int), 4096, 0) AS geom, p.id AS fid, p.id, p.name, p.category,
                CASE WHEN p.review_count > 0 THEN p.rating_sum::float8 / p.review_count END AS rating_avg,
                p.review_count
            FROM g JOIN places AS p ON p.id = g.id WHERE g.n = 1
        )
        SELECT coalesce((SELECT ST_AsMVT(clusters.*, 'clusters', 4096, 'geom', 'fid') FROM clusters), ''::bytea)
            || coalesce((SELECT ST_AsMVT(singles.*, 'places', 4096, 'geom', 'fid') FROM singles), ''::bytea)
        """

    struct SelectOne: PostgresPreparedStatement {
        static let name = "bench_select_one"
        static let sql = "SELECT 1"

        func makeBindings() throws -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
    }

    /// Every place of the tile grouped: $1…$2 the tile's keys, $3 the shift to level z + 2.
    struct PlainTile: PostgresPreparedStatement {
        static let name = "bench_postgis_tile"
        static let sql = """
            WITH g AS (
                SELECT cell >> $3::int AS c, count(*) AS n, avg(lat) AS lat, avg(lng) AS lng, min(id) AS id
                FROM places WHERE cell BETWEEN $1::bigint AND $2::bigint GROUP BY 1
            ),
            \(layers)
            """
        let first: Int64
        let last: Int64
        let address: TileAddress

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(first)
            bindings.append(last)
            bindings.append(Int32(2 * (PlaceCells.keyLevel - address.z - 2)))
            bindings.append(Int32(address.z))
            bindings.append(Int32(address.x))
            bindings.append(Int32(address.y))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> ByteBuffer { try row.decode(ByteBuffer.self) }
    }

    /// The tile's 16 cells of level z + 2 (from $1, level in $2): a cell's `place_cells` row
    /// when it has one, else its places grouped. The cells with a row are left out before their
    /// places are read, by a filter on the 16 cells against `r`'s few rows (the plan says so:
    /// `--explain`); a `NOT EXISTS` on `place_cells` inside the scan became a hashed subplan that
    /// read every row of the level, 0.5 ms at level 16.
    struct CellsTile: PostgresPreparedStatement {
        static let name = "bench_postgis_tile_cells"
        static let sql = """
            WITH r AS (
                SELECT cell AS c, places AS n, lat_sum / places AS lat, lng_sum / places AS lng, NULL::bigint AS id
                FROM place_cells WHERE level = $2::int AND cell BETWEEN $1::bigint AND $1::bigint + 15
            ),
            rest AS (
                SELECT s.c, count(*) AS n, avg(p.lat) AS lat, avg(p.lng) AS lng, min(p.id) AS id
                FROM generate_series($1::bigint, $1::bigint + 15) AS s(c)
                CROSS JOIN LATERAL (
                    SELECT lat, lng, id FROM places WHERE cell BETWEEN s.c << $3::int AND ((s.c + 1) << $3::int) - 1
                ) AS p
                WHERE s.c NOT IN (SELECT c FROM r)
                GROUP BY s.c
            ),
            g AS (SELECT * FROM r UNION ALL SELECT * FROM rest),
            \(layers)
            """
        let address: TileAddress

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(address.cell.cell << 4)
            bindings.append(Int32(address.z + 2))
            bindings.append(Int32(2 * (PlaceCells.keyLevel - address.z - 2)))
            bindings.append(Int32(address.z))
            bindings.append(Int32(address.x))
            bindings.append(Int32(address.y))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> ByteBuffer { try row.decode(ByteBuffer.self) }
    }
}

/// The number of features in each layer of MVT bytes: the check that two encoders drew the
/// same points (a protobuf walk of `Tile.layers` and `Layer.features`, nothing decoded else).
enum MVTFeatures {
    static func count(_ bytes: [UInt8]) -> [String: Int] {
        var layers: [String: Int] = [:]
        var tile = ProtobufReader(bytes: bytes[...])
        while let (field, wire) = tile.tag() {
            guard field == 3, wire == 2 else {
                tile.skip(wire)
                continue
            }
            var layer = ProtobufReader(bytes: tile.lengthDelimited())
            var name = ""
            var features = 0
            while let (field, wire) = layer.tag() {
                if field == 1, wire == 2 {
                    name = String(decoding: layer.lengthDelimited(), as: UTF8.self)
                } else if field == 2, wire == 2 {
                    _ = layer.lengthDelimited()
                    features += 1
                } else {
                    layer.skip(wire)
                }
            }
            layers[name] = features
        }
        return layers
    }
}

/// Reads protobuf's wire format (varints and the four wire types MVT uses), trusting its input.
private struct ProtobufReader {
    var bytes: ArraySlice<UInt8>

    mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.popFirst() {
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        return value
    }

    mutating func tag() -> (field: Int, wire: Int)? {
        guard !bytes.isEmpty else { return nil }
        let tag = varint()
        return (Int(tag >> 3), Int(tag & 7))
    }

    mutating func lengthDelimited() -> ArraySlice<UInt8> {
        let length = min(Int(varint()), bytes.count)
        defer { bytes = bytes.dropFirst(length) }
        return bytes.prefix(length)
    }

    mutating func skip(_ wire: Int) {
        switch wire {
        case 0: _ = varint()
        case 1: bytes = bytes.dropFirst(8)
        case 2: _ = lengthDelimited()
        default: bytes = bytes.dropFirst(4)
        }
    }
}
