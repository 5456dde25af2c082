import BurgerMapCore
import Logging
import PostgresNIO

extension PostgresMigrations {
    /// SQLite's v7-place-search: the folded name and address line of every place
    /// (`SearchText.fold`, written by every writer: `PostgresPlaceStore` and both import paths),
    /// with a B-tree of the folded names in code-point order (`COLLATE "C"`, as SQLite's
    /// `BINARY`: exact names and prefixes) and a GIN trigram index (`pg_trgm`, in `public` like PostGIS) on each. A search is
    /// `LIKE '%…%'` over them with `%`, `_` and `\` escaped; the index finds the rows that hold
    /// the pattern's trigrams and PostgreSQL checks each against the pattern.
    static let placeSearch: [String] = [
        "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public",
        "ALTER TABLE places ADD COLUMN search_name TEXT, ADD COLUMN search_address TEXT",
        "CREATE INDEX places_by_search_name ON places (search_name COLLATE \"C\")",
        "CREATE INDEX places_by_search_name_trigrams ON places USING GIN (search_name public.gin_trgm_ops)",
        "CREATE INDEX places_by_search_address ON places USING GIN (search_address public.gin_trgm_ops)",
    ]

    /// SQLite's v18-place-details: names in other languages (`StoredNames`), further facts
    /// (`PlaceAttributes`), opening hours and their time zone, and the folded other names
    /// (`PlaceDraft.searchNames`) with a GIN trigram index of their own, which a first load
    /// sets aside and builds again with the others.
    static let placeDetails: [String] = [
        """
        ALTER TABLE places ADD COLUMN names TEXT, ADD COLUMN attributes TEXT, ADD COLUMN opening_hours TEXT,
            ADD COLUMN timezone TEXT, ADD COLUMN search_names TEXT
        """,
        "CREATE INDEX places_by_search_names ON places USING GIN (search_names public.gin_trgm_ops)",
        "CREATE TABLE place_source_attributions (source TEXT PRIMARY KEY, attribution TEXT NOT NULL)",
    ]

    /// Folds the places stored before v5-place-search, a batch of ids at a time.
    @Sendable static func foldExistingPlaces(_ connection: PostgresConnection, _ logger: Logger) async throws {
        var ids: [Int64] = []
        var names: [String] = []
        var addresses: [String] = []
        let rows = try await connection.query(
            "SELECT id, name, address, city, province, postal_code, country FROM places", logger: logger)
        for try await (id, name, street, city, province, postalCode, country) in rows.decode(
            (Int64, String, String?, String?, String?, String?, String?).self)
        {
            let draft = PlaceDraft(
                name: name, lat: 0, lng: 0, address: street, city: city, province: province, postalCode: postalCode,
                country: country)
            ids.append(id)
            names.append(draft.searchName)
            // Arrays of text carry no NULL here: "" stands for it (an address line is never empty).
            addresses.append(draft.searchAddress ?? "")
        }
        for start in stride(from: 0, to: ids.count, by: 10_000) {
            let end = min(start + 10_000, ids.count)
            let (batchIDs, batchNames, batchAddresses) = (
                Array(ids[start..<end]), Array(names[start..<end]), Array(addresses[start..<end])
            )
            try await connection.query(
                """
                UPDATE places AS p SET search_name = f.name, search_address = NULLIF(f.address, '')
                FROM unnest(\(batchIDs)::BIGINT[], \(batchNames)::TEXT[], \(batchAddresses)::TEXT[]) AS f(id, name, address)
                WHERE p.id = f.id
                """, logger: logger)
        }
    }
}
