import BurgerMapCore
import GRDB

extension AppDatabase {
    /// v8-place-cells: map clusters. Every place gets `cell`, its Web Mercator key
    /// (`PlaceCells.key`, computed in Swift like every later key), and two indexes over it: one
    /// covering what a cluster counts (position and review count), one of reviewed places for
    /// `reviewed_only`. `place_cells` keeps the counts, sums and bounds of every cell that holds
    /// at least `PlaceCells.threshold` places, at levels 2…24, for all places and for the
    /// reviewed ones; writes keep it exact in their own transaction (`PlaceCellsTable`).
    static func placeCells(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE places ADD COLUMN cell INTEGER")
        let update = try db.makeStatement(sql: "UPDATE places SET cell = ? WHERE id = ?")
        var keys: [(Int64, Int64)] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT id, lat, lng FROM places")
        while let row = try rows.next() {
            keys.append((row[0], PlaceCells.key(lat: row[1], lng: row[2])))
        }
        for (id, key) in keys {
            try update.execute(arguments: [key, id])
        }
        try db.execute(
            sql: """
                CREATE INDEX places_by_cell ON places(cell, lat, lng, review_count);
                CREATE INDEX places_reviewed_by_cell ON places(cell) WHERE review_count > 0;
                CREATE TABLE place_cells (
                    level INTEGER NOT NULL CHECK (level BETWEEN \(PlaceCells.minLevel) AND \(PlaceCells.maxLevel)),
                    cell INTEGER NOT NULL CHECK (cell >= 0),
                    places INTEGER NOT NULL CHECK (places >= \(PlaceCells.threshold)),
                    lat_sum REAL NOT NULL,
                    lng_sum REAL NOT NULL,
                    lat_min REAL NOT NULL,
                    lat_max REAL NOT NULL,
                    lng_min REAL NOT NULL,
                    lng_max REAL NOT NULL,
                    reviewed INTEGER NOT NULL CHECK (reviewed BETWEEN 0 AND places),
                    reviewed_lat_sum REAL NOT NULL,
                    reviewed_lng_sum REAL NOT NULL,
                    reviewed_lat_min REAL NOT NULL,
                    reviewed_lat_max REAL NOT NULL,
                    reviewed_lng_min REAL NOT NULL,
                    reviewed_lng_max REAL NOT NULL,
                    PRIMARY KEY (level, cell)
                ) WITHOUT ROWID;
                """)
        try PlaceCellsTable(db).rebuild()
    }
}
