/// A keyset position that a cursor carries, as compact text (cursors are made for every page).
public protocol CursorPosition {
    var cursorText: String { get }
    init?(cursorText: String)
}

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
    package init<Row>(rows: [Row], limit: Int, item: (Row) -> Item, key: (Row) -> TimeKey) {
        items = rows.prefix(limit).map(item)
        next = rows.count > limit ? rows.prefix(limit).last.map(key) : nil
    }
}

/// The page sizes a list request may ask for, and the one it gets when it names none.
public enum ListLimits {
    public static let allowed = 1...100
    public static let `default` = 20
}

/// The direction of a (time, id) list and how a page continues after its key: the rule both
/// engines' SQL follows (`(time, id) < (key)` newest first, `>` oldest first, the same order on
/// both columns, the first page from a bound no row reaches).
public enum KeysetDirection: Sendable {
    case newestFirst
    case oldestFirst

    /// The comparison that keeps the rows after a key.
    public var comparison: String { self == .newestFirst ? "<" : ">" }

    /// `ORDER BY time DESC, id DESC` (or ascending).
    public func orderBy(time: String, id: String) -> String {
        let direction = self == .newestFirst ? "DESC" : "ASC"
        return "ORDER BY \(time) \(direction), \(id) \(direction)"
    }

    /// The (time, id) a page continues strictly after: the key's, or on the first page a bound
    /// beyond every row (so that one statement serves every page).
    public func start(after key: TimeKey?) -> (time: Int64, id: Int64) {
        if let key { return (key.time.milliseconds, key.id) }
        return self == .newestFirst ? (Int64.max, Int64.max) : (Int64.min, Int64.min)
    }
}
