import GRDB

/// A position in a list ordered by (time, id), newest or oldest first: a page continues strictly
/// after it. Times alone are not unique; the id breaks ties, so no item is seen twice or skipped.
public struct TimeKey: Sendable, Hashable {
    public var time: Timestamp
    public var id: Int64

    public init(time: Timestamp, id: Int64) {
        self.time = time
        self.id = id
    }
}

extension TimeKey: CursorPosition {
    public var cursorText: String { "\(time.milliseconds)|\(id)" }

    public init?(cursorText: String) {
        let parts = cursorText.split(separator: "|")
        guard parts.count == 2, let time = Int64(parts[0]), let id = Int64(parts[1]) else { return nil }
        self.init(time: Timestamp(milliseconds: time), id: id)
    }
}

/// One page of a keyset-paged list as storage reads it: the items, and the position of the last
/// one when more follow (`nil` exactly at the end).
public struct KeysetPage<Item: Sendable>: Sendable {
    public var items: [Item]
    public var next: TimeKey?

    public init(items: [Item], next: TimeKey?) {
        self.items = items
        self.next = next
    }

    /// A page from `limit + 1` rows read in list order: the extra row only says that more follow.
    init<Row>(rows: [Row], limit: Int, item: (Row) -> Item, key: (Row) -> TimeKey) {
        items = rows.prefix(limit).map(item)
        next = rows.count > limit ? rows.prefix(limit).last.map(key) : nil
    }
}

/// The direction of a (time, id) list, and the SQL that pages it.
enum KeysetOrder {
    case newestFirst
    case oldestFirst

    /// `AND (time, id) < (?, ?)` (or `>`) with its arguments, or nothing on the first page.
    func after(_ key: TimeKey?, time: String, id: String) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        guard let key else { return ("", []) }
        let comparison = self == .newestFirst ? "<" : ">"
        return (" AND (\(time), \(id)) \(comparison) (?, ?)", [key.time.milliseconds, key.id])
    }

    /// `select WHERE filter`, continued after `key`, in this order, `limit + 1` rows (the extra
    /// one only says that more follow), with its arguments (the filter's first).
    func query(
        _ select: String, where filter: String, _ arguments: [any DatabaseValueConvertible], time: String, id: String,
        after key: TimeKey?, limit: Int
    ) -> (sql: String, arguments: StatementArguments) {
        let keyset = after(key, time: time, id: id)
        return (
            "\(select) WHERE \(filter)\(keyset.sql) \(orderBy(time: time, id: id)) LIMIT ?",
            StatementArguments(arguments + keyset.arguments + [limit + 1])
        )
    }

    /// `ORDER BY time DESC, id DESC` (or ascending).
    func orderBy(time: String, id: String) -> String {
        let direction = self == .newestFirst ? "DESC" : "ASC"
        return "ORDER BY \(time) \(direction), \(id) \(direction)"
    }
}
