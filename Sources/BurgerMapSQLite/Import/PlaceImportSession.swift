import BurgerMapCore
import CGeoIndex
import Foundation
import GRDB
import GRDBSQLite

/// The database side of one import, inside its transaction.
///
/// SpatiaLite keeps `idx_places_geom` in step through triggers that insert one R*Tree entry per
/// row (tens of microseconds each). For the length of the import those triggers are set aside;
/// the new entries are then added in Hilbert-curve order, which keeps each insert in the same few
/// tree nodes, and the triggers are put back unchanged before the transaction commits. Place
/// search's indexes (`SearchSide`) stay in step through their triggers, except in a first load,
/// where they are built once from the table at the end.
struct PlaceImportSession {
    private let db: Database
    private let writer: PlaceWriter
    private let source: String
    private let locationWord: String
    /// The time of every row this import writes, and of its event.
    let time = Timestamp.now()
    private(set) var summary = ImportSummary()
    /// The places this import inserted or changed, for its one `places.imported` event: counted
    /// as they are written (no query of their own).
    private var facts = PlaceBatchFacts()
    /// The old positions of the places this import moved: their old map tiles changed too.
    private var movedFrom = PlaceBatchFacts()
    /// The places this import has already matched or inserted, with the position that did it.
    private var touched = TouchedPlaces()
    /// R*Tree entries to add (new places) or move (updated coordinates).
    private var newEntries: [RTreeBulkLoader.Entry] = []
    private var movedEntries: [RTreeBulkLoader.Entry] = []
    /// How many entries the spatial index had before the import.
    private let indexedBefore: Int
    /// SpatiaLite's triggers on `places`, to put back at the end.
    private var savedTriggers: [String] = []
    /// Indexes dropped for a first load and created again when it finishes.
    private var deferredIndexes: [String] = []
    /// Whether the cluster rows (`place_cells`) follow each change as it is made, or are built
    /// anew at the end: anew when the import changes more than 1 % of the places that were
    /// there (a rebuild reads every place once, about 1 µs each; one change costs about 100).
    private var cellsFollowEachChange: Bool
    private var cellChanges = 0

    init(db: Database, source: String, locationWord: String) throws {
        self.db = db
        self.writer = PlaceWriter(db)
        self.source = source
        self.locationWord = locationWord
        // Mapped pages would count towards the importer's memory; a bulk write gains nothing
        // from the map. Both settings are put back when the session finishes.
        try db.execute(sql: "PRAGMA mmap_size = 0")
        indexedBefore = try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_places_geom_rowid") ?? 0
        cellsFollowEachChange = indexedBefore > 0
        let triggers = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'places'")
        for trigger in triggers {
            // Place search's triggers add each row's trigrams in the statement that writes the
            // row; into an empty table the index is built once at the end instead.
            if indexedBefore > 0, (trigger["name"] as String).hasPrefix("places_search_") { continue }
            savedTriggers.append(trigger["sql"])
            try db.execute(sql: "DROP TRIGGER \(String(trigger["name"]).quotedDatabaseIdentifier)")
        }
        if indexedBefore == 0 {
            // Every index but the unique (source, id) one, which `insertIfNew` reads, is built
            // once at the end of a first load by sorting (1.2 s for 1,000,000 folded names), taken
            // from the catalog as PostgreSQL's first load does, so an index a later migration
            // adds is set aside too. Kept row by row, the review counts' and the sources' alone
            // cost 0.3–0.5 s more per 1,000,000 rows (8.65 s against 8.17 s for the narrow file
            // of `scripts/bench-import`, medians of two runs each, alternating).
            let indexes = try Row.fetchAll(
                db,
                sql: """
                    SELECT name, sql FROM sqlite_master
                    WHERE type = 'index' AND tbl_name = 'places' AND sql IS NOT NULL
                      AND name <> 'places_by_source_external_id'
                    """)
            for index in indexes {
                deferredIndexes.append(index["sql"])
                try db.execute(sql: "DROP INDEX \(String(index["name"]).quotedDatabaseIdentifier)")
            }
        }
    }

    mutating func apply(_ item: ImportItem, at position: Int) throws {
        summary.read += 1
        switch item {
        case .skip(let reason): skip(position, reason)
        case .place(let draft): try store(draft, at: position)
        }
    }

    private mutating func skip(_ position: Int, _ reason: ImportSkip.Reason) {
        summary.skipped += 1
        if summary.skips.count < ImportSummary.keptSkips {
            summary.skips.append(ImportSkip(location: "\(locationWord) \(position)", reason: reason))
        }
    }

    private mutating func store(_ draft: PlaceDraft, at position: Int) throws {
        var draft = draft
        let match: Int64?
        if let externalID = draft.externalId {
            if let id = try writer.insertIfNew(draft, at: time) {
                return try inserted(id, draft, at: position)
            }
            match = try writer.id(source: source, externalID: externalID)
            if let match, let first = touched.position(of: match) {
                return skip(position, .duplicateID(externalID, first: "\(locationWord) \(first)"))
            }
        } else {
            match = try sameNamedPlaceNearby(draft)
        }
        guard let match else {
            return try inserted(try writer.insert(draft, at: time), draft, at: position)
        }
        touched.record(match, at: position)
        guard let stored = try writer.draft(id: match) else { return }
        if draft.externalId == nil {
            // Matched by name and position: the place keeps where it came from.
            draft.source = stored.source
            draft.externalId = stored.externalId
        }
        guard stored != draft else {
            summary.unchanged += 1
            return
        }
        let moved = stored.lat != draft.lat || stored.lng != draft.lng
        let before = moved && cellsFollowEachChange ? try PlaceCellsTable(db).member(id: match) : nil
        try writer.update(id: match, with: draft, at: time)
        facts.add(id: match, lat: draft.lat, lng: draft.lng)
        if moved {
            movedFrom.widen(lat: stored.lat, lng: stored.lng)
            movedEntries.append(RTreeBulkLoader.Entry(id: match, x: draft.lng, y: draft.lat))
            try cellsChanged(match, before: before)
        }
        summary.updated += 1
    }

    private mutating func inserted(_ id: Int64, _ draft: PlaceDraft, at position: Int) throws {
        touched.record(id, at: position)
        summary.inserted += 1
        facts.add(id: id, lat: draft.lat, lng: draft.lng)
        try cellsChanged(id, before: nil)
        // Into an empty index, the new entries are all the entries: keep them for packing.
        if !willRebuild || indexedBefore == 0 {
            newEntries.append(RTreeBulkLoader.Entry(id: id, x: draft.lng, y: draft.lat))
        } else if !newEntries.isEmpty {
            // The index will be packed anew from the table: these entries are not needed.
            newEntries = []
        }
    }

    /// Keeps the cluster rows exact after a place was added or moved, or leaves them to be built
    /// anew once this import has changed too many places.
    private mutating func cellsChanged(_ id: Int64, before: CellMember?) throws {
        cellChanges += 1
        if cellsFollowEachChange, cellChanges * 100 > indexedBefore { cellsFollowEachChange = false }
        if cellsFollowEachChange { try PlaceCellsTable(db).maintain(placeID: id, before: before) }
    }

    /// Whether the import has brought so many entries that packing the whole index anew is
    /// cheaper than adding them one by one (about 1.5 µs an entry against 8).
    private var willRebuild: Bool {
        (summary.inserted + movedEntries.count) * 5 > indexedBefore
    }

    /// The place `PlaceMatching` picks that this import has not matched yet.
    private func sameNamedPlaceNearby(_ draft: PlaceDraft) throws -> Int64? {
        let statement = try db.cachedStatement(
            sql: """
                SELECT p.id, p.name, p.lat, p.lng
                FROM idx_places_geom AS r CROSS JOIN places AS p ON p.id = r.pkid
                WHERE r.pkid MATCH burgermap_nearest(?, ?, ?, -1, 0)
                """)
        let name = PlaceMatching.nameKey(draft.name)
        var best: (distanceM: Double, id: Int64)?
        for row in try Row.fetchAll(statement, arguments: [draft.lat, draft.lng, PlaceMatching.radiusM]) {
            let id: Int64 = row[0]
            guard touched.position(of: id) == nil else { continue }
            let distance = Geodesy.distanceM(draft.lat, draft.lng, row[2], row[3])
            if PlaceMatching.matches(rowKey: name, candidateName: row[1], distanceM: distance),
                PlaceMatching.isBetter(distanceM: distance, id: id, than: best)
            {
                best = (distance, id)
            }
        }
        return best?.id
    }

    /// The import's `places.imported` event (`source`, how many places it inserted or changed,
    /// their box with the old positions of moved ones, their ids while few); `nil` when it wrote
    /// no place.
    var event: DomainEvent? {
        var all = facts
        all.widen(with: movedFrom)
        return all.event(.placesImported, source: source)
    }

    /// Adds the new and moved entries to the spatial index and puts SpatiaLite's triggers back.
    ///
    /// When the import brings many entries compared with the index's size, the whole index is
    /// packed anew from the table; otherwise the entries go in one by one through the R*Tree in
    /// Hilbert order.
    mutating func finish() throws {
        if willRebuild {
            try rebuildSpatialIndex()
        } else {
            try addToSpatialIndex()
        }
        if indexedBefore == 0 {
            // FTS5 merges its segments as it writes them unless told not to: for 1,000,000
            // places the rebuild took 13.6 s merging and 6.3 s without (the sqlite3 shell), and
            // searches on the unmerged index measured the same. Later writes merge again.
            for table in SearchSide.allCases.map(\.table) {
                try db.execute(
                    sql: """
                        INSERT INTO \(table) (\(table), rank) VALUES ('automerge', 0);
                        INSERT INTO \(table) (\(table)) VALUES ('rebuild');
                        INSERT INTO \(table) (\(table), rank) VALUES ('automerge', 4);
                        """)
            }
        }
        for sql in deferredIndexes + savedTriggers {
            try db.execute(sql: sql)
        }
        if cellChanges > 0, !cellsFollowEachChange { try PlaceCellsTable(db).rebuild() }
        try db.execute(sql: "PRAGMA mmap_size = \(1 << 34)")
    }

    private func rebuildSpatialIndex() throws {
        let loader = RTreeBulkLoader(db: db, table: "idx_places_geom")
        if indexedBefore == 0, movedEntries.isEmpty {
            return try loader.rebuild(newEntries)
        }
        var entries: [RTreeBulkLoader.Entry] = []
        entries.reserveCapacity(indexedBefore + summary.inserted)
        // Read straight from the statement: this visits every place.
        let statement = try db.makeStatement(sql: "SELECT id, lng, lat FROM places")
        let handle = statement.sqliteStatement
        while sqlite3_step(handle) == SQLITE_ROW {
            entries.append(
                RTreeBulkLoader.Entry(
                    id: sqlite3_column_int64(handle, 0), x: sqlite3_column_double(handle, 1),
                    y: sqlite3_column_double(handle, 2)))
        }
        sqlite3_reset(handle)
        try loader.rebuild(entries)
    }

    private mutating func addToSpatialIndex() throws {
        newEntries.sort { $0.curve < $1.curve }
        let insert = try db.makeStatement(
            sql: "INSERT INTO idx_places_geom (pkid, xmin, xmax, ymin, ymax) VALUES (?, ?, ?, ?, ?)")
        for entry in newEntries {
            try insert.execute(arguments: [entry.id, entry.minX, entry.maxX, entry.minY, entry.maxY])
        }
        let move = try db.makeStatement(
            sql: "UPDATE idx_places_geom SET xmin = ?, xmax = ?, ymin = ?, ymax = ? WHERE pkid = ?")
        for entry in movedEntries {
            try move.execute(arguments: [entry.minX, entry.maxX, entry.minY, entry.maxY, entry.id])
        }
    }
}

/// Which places an import has matched or inserted, and at which row or feature.
///
/// New places get consecutive ids, so positions are kept in an array for one run of consecutive
/// ids (a dictionary of a million entries cost a tenth of the import); any id outside that run
/// goes to a dictionary.
struct TouchedPlaces {
    private var runStart: Int64 = 0
    private var runPositions: [Int32] = []
    private var others: [Int64: Int32] = [:]

    /// The position that matched or inserted `id`, if any did.
    func position(of id: Int64) -> Int32? {
        let offset = id - runStart
        if !runPositions.isEmpty, offset >= 0, offset < runPositions.count {
            return runPositions[Int(offset)]
        }
        return others[id]
    }

    mutating func record(_ id: Int64, at position: Int) {
        let position = Int32(clamping: position)
        if runPositions.isEmpty {
            runStart = id
            runPositions.append(position)
        } else if id == runStart + Int64(runPositions.count) {
            runPositions.append(position)
        } else {
            others[id] = position
        }
    }
}
