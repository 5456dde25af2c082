import Foundation
import PostgresNIO
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapPostgres

/// The PostgreSQL engine's reads of cell rows and places as one row of arrays: the binary
/// array reader on the values PostgreSQL sends, and the paged build of every cell row.
@Suite("PostgreSQL cell reads as arrays")
struct PlaceCellsReadsTests {
    @Test("arrays of BIGINT, FLOAT8 and BOOL read back as PostgreSQL sends them, empty ones included")
    func arraysReadBack() async throws {
        try await withPostgresEngine { engine in
            let rows = try await engine.pool.query(
                """
                SELECT ARRAY[0, -1, 9223372036854775807, -9223372036854775808, 822136200302166016]::BIGINT[],
                    ARRAY[0, '-0'::FLOAT8, 37.5665, -180, 1e-300, 'Infinity', '-Infinity']::FLOAT8[],
                    ARRAY[true, false, true]::BOOL[], '{}'::BIGINT[], '{}'::FLOAT8[],
                    (SELECT coalesce(array_agg(x), '{}') FROM generate_series(1, 0) AS x)::BIGINT[]
                """)
            for try await row in rows {
                let row = row.makeRandomAccess()
                #expect(
                    try PostgresBinaryArray.int64s(row[0]) == [0, -1, .max, .min, 822_136_200_302_166_016])
                let doubles = try PostgresBinaryArray.doubles(row[1])
                #expect(doubles == [0, 0, 37.5665, -180, 1e-300, .infinity, -.infinity])
                #expect(doubles[1].sign == .minus)
                #expect(try PostgresBinaryArray.bools(row[2]) == [true, false, true])
                #expect(try PostgresBinaryArray.int64s(row[3]) == [])
                #expect(try PostgresBinaryArray.doubles(row[4]) == [])
                #expect(try PostgresBinaryArray.int64s(row[5]) == [])
            }
        }
    }

    @Test("an array with a NULL, of another element type or of two dimensions is refused, not misread")
    func unexpectedArraysAreRefused() async throws {
        try await withPostgresEngine { engine in
            let rows = try await engine.pool.query(
                """
                SELECT ARRAY[1, NULL]::BIGINT[], ARRAY[1, 2]::INTEGER[], ARRAY[[1, 2], [3, 4]]::BIGINT[],
                    ARRAY[1.5]::FLOAT4[], 7::BIGINT
                """)
            for try await row in rows {
                let row = row.makeRandomAccess()
                for column in 0..<5 {
                    #expect(throws: StorageError.self) { try PostgresBinaryArray.int64s(row[column]) }
                }
                #expect(throws: StorageError.self) { try PostgresBinaryArray.doubles(row[3]) }
            }
        }
    }

    @Test("a build of every cell row in pages smaller than a cell's places counts each place once")
    func pagedRebuildCountsEachPlaceOnce() async throws {
        try await withPostgresEngine { engine in
            // 20 places on one point, 20 on another 3 m away, 5 on a third far off: each of the
            // first two cells' places spans pages of 7, which a page boundary on the key alone
            // would cut (or repeat).
            var drafts: [PlaceDraft] = []
            for index in 0..<20 { drafts.append(PlaceDraft(name: "A\(index)", lat: 37.5665, lng: 126.978)) }
            for index in 0..<20 { drafts.append(PlaceDraft(name: "B\(index)", lat: 37.56652, lng: 126.97802)) }
            for index in 0..<5 { drafts.append(PlaceDraft(name: "C\(index)", lat: -33.86, lng: 151.21)) }
            _ = try await PostgresHarness(engine: engine).insert(drafts)
            let keyA = PlaceCells.key(lat: 37.5665, lng: 126.978)
            let keyB = PlaceCells.key(lat: 37.56652, lng: 126.97802)
            #expect(
                PlaceCells.cell(of: keyA, at: PlaceCells.maxLevel) != PlaceCells.cell(of: keyB, at: PlaceCells.maxLevel)
            )

            for page in [7, 20, 100_000] {
                try await engine.pool.transaction(logger: engine.logger) { connection in
                    try await PostgresPlaceCells(connection: connection, logger: engine.logger).rebuild(page: page)
                }
                var byLevel: [Int: [Int64]] = [:]
                let rows = try await engine.pool.query("SELECT level, places FROM place_cells ORDER BY level, cell")
                for try await (level, places) in rows.decode((Int32, Int64).self) {
                    byLevel[Int(level), default: []].append(places)
                }
                // The finest level: A's and B's cells, 20 each (C's 5 make no row).
                #expect(byLevel[PlaceCells.maxLevel] == [20, 20], "page \(page)")
                // The coarsest: one cell holds Seoul's 40, Sydney's 5 make no row.
                #expect(byLevel[PlaceCells.minLevel] == [40], "page \(page)")
            }
        }
    }
}
