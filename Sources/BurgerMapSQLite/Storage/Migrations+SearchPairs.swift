import GRDB

extension AppDatabase {
    /// The character that ends every folded text in `places_search` (U+001E, a control
    /// character, which the field rules refuse in names and addresses), so that every
    /// occurrence of two code points in a text starts a trigram:
    /// `"jazz"` is indexed as `"jazz\u{1E}"`, whose last trigram `"zz\u{1E}"` starts with `"zz"`.
    static let searchTerminal = "char(30)"

    /// v19-search-pairs: `places_search` made again over the folded texts each followed by
    /// `searchTerminal` (through the view `places_search_text`, its external content), and
    /// `places_search_terms`, an `fts5vocab` table of its terms one instance a row, so that a
    /// query of two code points lists the trigrams that start with it (a seek per term) and
    /// finds its places through them (`SearchTiers.pairQuery`).
    ///
    /// The terminal adds one trigram per text: the rebuild for 1,000,000 places took 3.18–3.23 s
    /// of CPU in the sqlite3 shell against 3.06–3.11 s without it, and a first load of 1,000,000
    /// rows 12.34 s against 12.32 s (`scripts/bench-import` with `BEFORE=`); a query of two code points that few names hold
    /// no longer scans every place (`zz`: 322 ms before).
    static func searchPairs(_ db: Database) throws {
        let terminal = searchTerminal
        try db.execute(
            sql: """
                DROP TRIGGER IF EXISTS places_search_insert;
                DROP TRIGGER IF EXISTS places_search_delete;
                DROP TRIGGER IF EXISTS places_search_update;
                DROP TABLE places_search;
                CREATE VIEW places_search_text AS
                    SELECT id, search_name || \(terminal) AS search_name, search_address || \(terminal) AS search_address,
                        search_names || \(terminal) AS search_names
                    FROM places;
                """)
        try createSearchIndex(db, detail: "none")
    }

    /// v20-search-columns: `places_search` made again with `detail = column`, so that a query
    /// can ask for the names alone (`{search_name search_names} : …`). A query that every
    /// address line holds and no name (`t,`, `ci` on the benchmark's places) walked the name
    /// rank through every place: 470 ms, 2.9 s nearest-first from a point.
    static func searchColumns(_ db: Database) throws {
        try dropSearchIndex(db)
        try createSearchIndex(db, detail: "column")
    }

    /// v21-search-sides: `places_search` split into one index of the names
    /// (`places_name_search`: `search_name`, `search_names`) and one of the address lines
    /// (`places_address_search`), each with its vocabulary table, `detail = none` again. A
    /// query that every address line holds and few names (`t,`, `ci`) lands, in the names'
    /// vocabulary, on terms that few places hold, where one index of both landed on `t, ` and
    /// read the million places that hold it to keep those of the names' columns: 22–29 ms.
    /// A name or an address changed writes only its own index.
    static func searchSides(_ db: Database) throws {
        try dropSearchIndex(db)
        for side in SearchSide.allCases {
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE \(side.table) USING fts5(
                        \(side.columns.joined(separator: ", ")), content = 'places_search_text', content_rowid = 'id',
                        tokenize = 'trigram case_sensitive 1', columnsize = 0, detail = none
                    );
                    INSERT INTO \(side.table) (\(side.table)) VALUES ('rebuild');
                    CREATE VIRTUAL TABLE \(side.terms) USING fts5vocab(\(side.table), instance);
                    CREATE TRIGGER places_search_\(side)_insert AFTER INSERT ON places BEGIN
                        \(side.insert("NEW"))
                    END;
                    CREATE TRIGGER places_search_\(side)_delete AFTER DELETE ON places BEGIN
                        \(side.delete("OLD"))
                    END;
                    CREATE TRIGGER places_search_\(side)_update AFTER UPDATE OF \(side.columns.joined(separator: ", ")) ON places
                    WHEN \(side.columns.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")) BEGIN
                        \(side.delete("OLD"))
                        \(side.insert("NEW"))
                    END;
                    """)
        }
    }

    /// `places_search` as v19 and v20 made it: its triggers, its vocabulary table and itself.
    private static func dropSearchIndex(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP TRIGGER places_search_insert;
                DROP TRIGGER places_search_delete;
                DROP TRIGGER places_search_update;
                DROP TABLE places_search_terms;
                DROP TABLE places_search;
                """)
    }

    /// `places_search` over `places_search_text` with `detail`, built, with its vocabulary
    /// table and the triggers that keep it in step.
    private static func createSearchIndex(_ db: Database, detail: String) throws {
        let terminal = searchTerminal
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE places_search USING fts5(
                    search_name, search_address, search_names, content = 'places_search_text', content_rowid = 'id',
                    tokenize = 'trigram case_sensitive 1', columnsize = 0, detail = \(detail)
                );
                INSERT INTO places_search (places_search) VALUES ('rebuild');
                CREATE VIRTUAL TABLE places_search_terms USING fts5vocab(places_search, instance);
                CREATE TRIGGER places_search_insert AFTER INSERT ON places BEGIN
                    INSERT INTO places_search (rowid, search_name, search_address, search_names)
                    VALUES (NEW.id, NEW.search_name || \(terminal), NEW.search_address || \(terminal),
                        NEW.search_names || \(terminal));
                END;
                CREATE TRIGGER places_search_delete AFTER DELETE ON places BEGIN
                    INSERT INTO places_search (places_search, rowid, search_name, search_address, search_names)
                    VALUES ('delete', OLD.id, OLD.search_name || \(terminal), OLD.search_address || \(terminal),
                        OLD.search_names || \(terminal));
                END;
                CREATE TRIGGER places_search_update AFTER UPDATE OF search_name, search_address, search_names ON places
                WHEN OLD.search_name IS NOT NEW.search_name OR OLD.search_address IS NOT NEW.search_address
                    OR OLD.search_names IS NOT NEW.search_names BEGIN
                    INSERT INTO places_search (places_search, rowid, search_name, search_address, search_names)
                    VALUES ('delete', OLD.id, OLD.search_name || \(terminal), OLD.search_address || \(terminal),
                        OLD.search_names || \(terminal));
                    INSERT INTO places_search (rowid, search_name, search_address, search_names)
                    VALUES (NEW.id, NEW.search_name || \(terminal), NEW.search_address || \(terminal),
                        NEW.search_names || \(terminal));
                END;
                """)
    }
}
