import GRDB

/// Writes place rows with their SpatiaLite point, through statements prepared once per
/// connection (the importer reuses one writer for a whole file).
struct PlaceWriter {
    let db: Database

    init(_ db: Database) {
        self.db = db
    }

    private static let fields =
        "name, lat, lng, address, city, province, postal_code, country, phone, category, website, source, external_id"

    private func arguments(_ draft: PlaceDraft) -> StatementArguments {
        [
            draft.name, draft.lat, draft.lng, draft.address, draft.city, draft.province, draft.postalCode,
            draft.country, draft.phone, draft.category, draft.website, draft.source, draft.externalId,
        ]
    }

    /// Inserts a place and returns its id.
    func insert(_ draft: PlaceDraft, at time: Timestamp) throws -> Int64 {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO places (\(Self.fields), created_at, updated_at, geom)
                VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?, ?, ?, MakePoint(?, ?, 4326))
                """)
        try statement.execute(
            arguments: arguments(draft) + [time.milliseconds, time.milliseconds, draft.lng, draft.lat])
        return db.lastInsertedRowID
    }

    /// Replaces a place's descriptive fields and position.
    func update(id: Int64, with draft: PlaceDraft, at time: Timestamp) throws {
        let statement = try db.cachedStatement(
            sql: """
                UPDATE places SET name = ?, lat = ?, lng = ?, address = ?, city = ?, province = ?,
                    postal_code = ?, country = ?, phone = ?, category = ?, website = ?, source = ?,
                    external_id = ?, updated_at = ?, geom = MakePoint(?, ?, 4326)
                WHERE id = ?
                """)
        try statement.execute(arguments: arguments(draft) + [time.milliseconds, draft.lng, draft.lat, id])
    }

    /// The stored draft of a place, for comparing an imported row with it.
    func draft(id: Int64) throws -> PlaceDraft? {
        let statement = try db.cachedStatement(sql: "SELECT \(Self.fields) FROM places WHERE id = ?")
        return try Row.fetchOne(statement, arguments: [id]).map { row in
            PlaceDraft(
                name: row[0], lat: row[1], lng: row[2], address: row[3], city: row[4], province: row[5],
                postalCode: row[6], country: row[7], phone: row[8], category: row[9], website: row[10],
                source: row[11], externalId: row[12])
        }
    }
}
