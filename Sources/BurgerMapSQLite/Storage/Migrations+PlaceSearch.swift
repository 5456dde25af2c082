import BurgerMapCore
import GRDB

extension AppDatabase {
    /// v7-place-search: the folded name and address line of every place (`SearchText.fold`,
    /// written by `PlaceWriter`), `places_by_search_name`, an ordinary index of the folded names
    /// (exact names and prefixes), and `places_search`, an FTS5 index of trigrams over both.
    ///
    /// The index is external-content (it stores no copy of the text), case-sensitive (the
    /// columns are folded already) and keeps no positions (`detail = none`): it finds the rows
    /// that hold every trigram of a query, and the search checks the substring on each row.
    /// Rebuilding it for 1,000,000 places took 13.1 s, against 23.0 s with positions (which a
    /// phrase query needs). The triggers keep it in step with every insert, edit and delete
    /// inside the statement that makes the change; a first import sets them aside and rebuilds
    /// the index once at its end (`PlaceImportSession`).
    static func placeSearch(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE places ADD COLUMN search_name TEXT;
                ALTER TABLE places ADD COLUMN search_address TEXT;
                """)
        // Places stored before this migration get their folded columns here, in Swift: the
        // fold is the service's own rule, not SQL's.
        let update = try db.makeStatement(sql: "UPDATE places SET search_name = ?, search_address = ? WHERE id = ?")
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, name, address, city, province, postal_code, country FROM places")
        var folded: [(Int64, String, String?)] = []
        while let row = try rows.next() {
            let draft = PlaceDraft(
                name: row[1], lat: 0, lng: 0, address: row[2], city: row[3], province: row[4], postalCode: row[5],
                country: row[6])
            folded.append((row[0], draft.searchName, draft.searchAddress))
        }
        for (id, name, address) in folded {
            try update.execute(arguments: [name, address, id])
        }
        try db.execute(
            sql: """
                CREATE INDEX places_by_search_name ON places(search_name);
                CREATE VIRTUAL TABLE places_search USING fts5(
                    search_name, search_address, content = 'places', content_rowid = 'id',
                    tokenize = 'trigram case_sensitive 1', columnsize = 0, detail = none
                );
                INSERT INTO places_search (places_search) VALUES ('rebuild');
                \(searchTriggers)
                """)
    }

    /// The triggers that keep `places_search` in step with `places` (names start with
    /// `places_search_`, which the import session looks for).
    static let searchTriggers = """
        CREATE TRIGGER places_search_insert AFTER INSERT ON places BEGIN
            INSERT INTO places_search (rowid, search_name, search_address)
            VALUES (NEW.id, NEW.search_name, NEW.search_address);
        END;
        CREATE TRIGGER places_search_delete AFTER DELETE ON places BEGIN
            INSERT INTO places_search (places_search, rowid, search_name, search_address)
            VALUES ('delete', OLD.id, OLD.search_name, OLD.search_address);
        END;
        CREATE TRIGGER places_search_update AFTER UPDATE OF search_name, search_address ON places
        WHEN OLD.search_name IS NOT NEW.search_name OR OLD.search_address IS NOT NEW.search_address BEGIN
            INSERT INTO places_search (places_search, rowid, search_name, search_address)
            VALUES ('delete', OLD.id, OLD.search_name, OLD.search_address);
            INSERT INTO places_search (rowid, search_name, search_address)
            VALUES (NEW.id, NEW.search_name, NEW.search_address);
        END;
        """
}

extension AppDatabase {
    /// v18-place-details: names in other languages (`StoredNames`), further facts
    /// (`PlaceAttributes`), opening hours and their time zone; and the folded other names
    /// (`search_names`, `PlaceDraft.searchNames`) as a third column of `places_search`, which is
    /// made again with it (13 s for 1,000,000 places; existing places have no other names yet).
    /// And the attribution a source's licence requires (`PlaceSourceAttribution`: an
    /// OpenStreetMap extract's "© OpenStreetMap contributors"), written by its imports.
    static func placeDetails(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE place_source_attributions (
                    source TEXT PRIMARY KEY,
                    attribution TEXT NOT NULL
                ) WITHOUT ROWID;
                ALTER TABLE places ADD COLUMN names TEXT;
                ALTER TABLE places ADD COLUMN attributes TEXT;
                ALTER TABLE places ADD COLUMN opening_hours TEXT;
                ALTER TABLE places ADD COLUMN timezone TEXT;
                ALTER TABLE places ADD COLUMN search_names TEXT;
                DROP TRIGGER IF EXISTS places_search_insert;
                DROP TRIGGER IF EXISTS places_search_delete;
                DROP TRIGGER IF EXISTS places_search_update;
                DROP TABLE places_search;
                CREATE VIRTUAL TABLE places_search USING fts5(
                    search_name, search_address, search_names, content = 'places', content_rowid = 'id',
                    tokenize = 'trigram case_sensitive 1', columnsize = 0, detail = none
                );
                INSERT INTO places_search (places_search) VALUES ('rebuild');
                CREATE TRIGGER places_search_insert AFTER INSERT ON places BEGIN
                    INSERT INTO places_search (rowid, search_name, search_address, search_names)
                    VALUES (NEW.id, NEW.search_name, NEW.search_address, NEW.search_names);
                END;
                CREATE TRIGGER places_search_delete AFTER DELETE ON places BEGIN
                    INSERT INTO places_search (places_search, rowid, search_name, search_address, search_names)
                    VALUES ('delete', OLD.id, OLD.search_name, OLD.search_address, OLD.search_names);
                END;
                CREATE TRIGGER places_search_update AFTER UPDATE OF search_name, search_address, search_names ON places
                WHEN OLD.search_name IS NOT NEW.search_name OR OLD.search_address IS NOT NEW.search_address
                    OR OLD.search_names IS NOT NEW.search_names BEGIN
                    INSERT INTO places_search (places_search, rowid, search_name, search_address, search_names)
                    VALUES ('delete', OLD.id, OLD.search_name, OLD.search_address, OLD.search_names);
                    INSERT INTO places_search (rowid, search_name, search_address, search_names)
                    VALUES (NEW.id, NEW.search_name, NEW.search_address, NEW.search_names);
                END;
                """)
    }
}
