import BurgerMapCore
import GRDB

/// The SQLite side of `KeysetDirection`: the clause and arguments that page a (time, id) list.
typealias KeysetOrder = KeysetDirection

extension KeysetDirection {
    /// `AND (time, id) < (?, ?)` (or `>`) with its arguments, or nothing on the first page.
    func after(_ key: TimeKey?, time: String, id: String) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        guard let key else { return ("", []) }
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
}
