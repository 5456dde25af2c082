import BurgerMapCore
import GRDB
import GRDBSQLite

extension Database {
    /// The error of an SQLite call made on a statement's raw handle (the hot paths that bypass
    /// GRDB's argument binding), in GRDB's error type so callers handle one kind.
    func rawError(_ code: Int32, sql: String? = nil) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqliteConnection)),
            sql: sql)
    }
}
