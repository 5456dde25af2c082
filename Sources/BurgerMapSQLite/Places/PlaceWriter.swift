import BurgerMapCore
import GRDB
import GRDBSQLite

/// Writes place rows with their SpatiaLite point and their folded search columns.
///
/// The importer writes up to hundreds of thousands of rows a second through one writer, so the
/// insert binds its values straight to a statement prepared once (GRDB's argument arrays cost
/// more than the insert itself at that rate); everything else goes through GRDB as usual.
final class PlaceWriter {
    private let db: Database
    private var insertStatement: Statement?
    private var insertNewStatement: Statement?

    init(_ db: Database) {
        self.db = db
    }

    private static let fields =
        "name, lat, lng, address, city, province, postal_code, country, phone, category, website, source, external_id, "
        + "names, opening_hours, timezone, attributes"
    private static let insertSQL = """
        INSERT INTO places (\(fields), created_at, updated_at, geom, search_name, search_address, cell, search_names)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?18, ?19, ?20, ?21, ?14, ?14,
            MakePoint(?3, ?2, 4326), ?15, ?16, ?17, ?22)
        """

    /// Inserts a place and returns its id.
    func insert(_ draft: PlaceDraft, at time: Timestamp) throws -> Int64 {
        if insertStatement == nil { insertStatement = try db.makeStatement(sql: Self.insertSQL) }
        try execute(insertStatement!, draft, time)
        return db.lastInsertedRowID
    }

    /// Inserts a place unless one with the same (source, external id) exists; returns the new
    /// id, or `nil` when the place was already there. The unique index does the lookup.
    func insertIfNew(_ draft: PlaceDraft, at time: Timestamp) throws -> Int64? {
        if insertNewStatement == nil {
            insertNewStatement = try db.makeStatement(
                sql: Self.insertSQL + """
                     ON CONFLICT (source, external_id) WHERE source IS NOT NULL AND external_id IS NOT NULL
                    DO NOTHING
                    """)
        }
        try execute(insertNewStatement!, draft, time)
        return sqlite3_changes(db.sqliteConnection) == 1 ? db.lastInsertedRowID : nil
    }

    /// The place stored under (`source`, `externalID`), if any.
    func id(source: String?, externalID: String?) throws -> Int64? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM places WHERE source = ? AND external_id = ?"),
            arguments: [source, externalID])
    }

    private func execute(_ statement: Statement, _ draft: PlaceDraft, _ time: Timestamp) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        bindText(handle, 1, draft.name)
        bindText(handle, 4, draft.address)
        bindText(handle, 5, draft.city)
        bindText(handle, 6, draft.province)
        bindText(handle, 7, draft.postalCode)
        bindText(handle, 8, draft.country)
        bindText(handle, 9, draft.phone)
        bindText(handle, 10, draft.category)
        bindText(handle, 11, draft.website)
        bindText(handle, 12, draft.source)
        bindText(handle, 13, draft.externalId)
        sqlite3_bind_double(handle, 2, draft.lat)
        sqlite3_bind_double(handle, 3, draft.lng)
        sqlite3_bind_int64(handle, 14, time.milliseconds)
        // The folded columns of place search (its indexes, `SearchSide`, follow them through their
        // triggers).
        bindText(handle, 15, draft.searchName)
        bindText(handle, 16, draft.searchAddress)
        // The map cell of clusters (`PlaceCells`).
        sqlite3_bind_int64(handle, 17, PlaceCells.key(lat: draft.lat, lng: draft.lng))
        bindText(handle, 18, draft.storedNames)
        bindText(handle, 19, draft.openingHours)
        bindText(handle, 20, draft.timeZone)
        bindText(handle, 21, draft.attributes)
        bindText(handle, 22, draft.searchNames)
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw db.rawError(code, sql: statement.sql)
        }
    }

    /// Binds text from the string's own UTF-8 storage: passing a `String` as a C string copies
    /// small strings into a new array first, once per field and row.
    private func bindText(_ handle: SQLiteStatement, _ index: Int32, _ text: String?) {
        guard var text else {
            sqlite3_bind_null(handle, index)
            return
        }
        text.withUTF8 { bytes in
            guard let start = bytes.baseAddress else {
                _ = sqlite3_bind_text(handle, index, "", 0, SQLITE_TRANSIENT)
                return
            }
            _ = start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), SQLITE_TRANSIENT)
            }
        }
    }

    /// Replaces a place's descriptive fields and position.
    func update(id: Int64, with draft: PlaceDraft, at time: Timestamp) throws {
        try db.execute(
            sql: """
                UPDATE places SET name = ?, lat = ?, lng = ?, address = ?, city = ?, province = ?,
                    postal_code = ?, country = ?, phone = ?, category = ?, website = ?, source = ?,
                    external_id = ?, updated_at = ?, geom = MakePoint(?, ?, 4326), search_name = ?,
                    search_address = ?, cell = ?, names = ?, opening_hours = ?, timezone = ?, attributes = ?,
                    search_names = ?
                WHERE id = ?
                """,
            arguments: [
                draft.name, draft.lat, draft.lng, draft.address, draft.city, draft.province, draft.postalCode,
                draft.country, draft.phone, draft.category, draft.website, draft.source, draft.externalId,
                time.milliseconds, draft.lng, draft.lat, draft.searchName, draft.searchAddress,
                PlaceCells.key(lat: draft.lat, lng: draft.lng), draft.storedNames, draft.openingHours, draft.timeZone,
                draft.attributes, draft.searchNames, id,
            ])
    }

    /// The stored draft of a place, for comparing an imported row with it.
    func draft(id: Int64) throws -> PlaceDraft? {
        let statement = try db.cachedStatement(sql: "SELECT \(Self.fields) FROM places WHERE id = ?")
        return try Row.fetchOne(statement, arguments: [id]).map { row in
            PlaceDraft(
                name: row[0], lat: row[1], lng: row[2], address: row[3], city: row[4], province: row[5],
                postalCode: row[6], country: row[7], phone: row[8], category: row[9], website: row[10],
                source: row[11], externalId: row[12], names: StoredNames.names(row[13]), openingHours: row[14],
                timeZone: row[15], attributes: row[16])
        }
    }
}

/// SQLite's "copy this text now" destructor, which Swift cannot import from the C macro.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
