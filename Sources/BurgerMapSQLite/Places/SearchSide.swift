/// One of the two trigram indexes of place search (`v21-search-sides`): the names, or the
/// address lines, over `places_search_text` (each text followed by `searchTerminal`).
enum SearchSide: CaseIterable {
    case names, address

    /// The FTS5 table.
    var table: String { self == .names ? "places_name_search" : "places_address_search" }

    /// Its vocabulary, one instance a row (`fts5vocab … instance`).
    var terms: String { table + "_terms" }

    /// The folded columns of `places` it indexes.
    var columns: [String] { self == .names ? ["search_name", "search_names"] : ["search_address"] }

    /// The statement that indexes the row `row` (`NEW`).
    func insert(_ row: String) -> String {
        "INSERT INTO \(table) (rowid, \(columns.joined(separator: ", "))) VALUES (\(row).id, \(texts(of: row)));"
    }

    /// The statement that takes the row `row` (`OLD`) out of the index: external content, so
    /// the texts it was indexed with.
    func delete(_ row: String) -> String {
        "INSERT INTO \(table) (\(table), rowid, \(columns.joined(separator: ", "))) "
            + "VALUES ('delete', \(row).id, \(texts(of: row)));"
    }

    /// The row's indexed texts, each followed by `searchTerminal`, as `places_search_text` reads them.
    private func texts(of row: String) -> String {
        columns.map { "\(row).\($0) || \(AppDatabase.searchTerminal)" }.joined(separator: ", ")
    }
}
