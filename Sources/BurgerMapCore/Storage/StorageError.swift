/// A storage failure that is not the client's fault, from either engine (the SpatiaLite cases are
/// the SQLite engine's).
public enum StorageError: Error, CustomStringConvertible {
    /// `mod_spatialite` could not be loaded (Debian's `libsqlite3-mod-spatialite` is missing).
    case spatialiteUnavailable(String)
    /// A SpatiaLite function reported failure by its return value.
    case spatialiteCallFailed(String)
    /// A row written in the current transaction could not be read back.
    case rowVanished(String)
    /// An answer of the database did not have the shape its statement gives (for example
    /// aggregated columns of different lengths).
    case unexpectedAnswer(String)

    public var description: String {
        switch self {
        case .spatialiteUnavailable(let message):
            "cannot load SpatiaLite (install libsqlite3-mod-spatialite): \(message)"
        case .spatialiteCallFailed(let call):
            "SpatiaLite call failed: \(call)"
        case .rowVanished(let table):
            "a \(table) row written in this transaction is missing"
        case .unexpectedAnswer(let what):
            "the database answered \(what) in an unexpected shape"
        }
    }
}
