import PostgresNIO

/// Why the PostgreSQL engine could not start or run, in words an operator can act on.
public enum PostgresEngineError: Error, Equatable, CustomStringConvertible {
    /// The database URL is malformed; the text says which part.
    case invalidURL(String)
    /// No connection to the server (refused, unknown host, timeout).
    case unreachable(server: String, reason: String)
    /// The server refused the user name or password.
    case authenticationFailed(user: String, reason: String)
    /// The server asks for a password and the URL has none.
    case passwordRequired(user: String)
    /// The server has no database of that name.
    case databaseMissing(String)
    /// `CREATE EXTENSION postgis` failed: PostGIS is not installed on the server, or the user may
    /// not create extensions.
    case postgisUnavailable(String)
    /// A schema name the engine cannot use as an identifier.
    case invalidSchema(String)
    /// Any other error the server answered.
    case server(String)
    /// A first load found places in `places` when its rows were ready (another writer added
    /// them meanwhile), so it applied nothing.
    case placesAddedDuringFirstLoad

    public var description: String {
        switch self {
        case .invalidURL(let reason): "invalid database URL: \(reason)"
        case .unreachable(let server, let reason): "cannot reach the PostgreSQL server at \(server): \(reason)"
        case .authenticationFailed(let user, let reason):
            "PostgreSQL refused the login of user \"\(user)\" (wrong password or no access): \(reason)"
        case .passwordRequired(let user):
            "PostgreSQL asks for a password for user \"\(user)\" and the database URL has none"
        case .databaseMissing(let name): "the PostgreSQL server has no database \"\(name)\""
        case .postgisUnavailable(let reason):
            "PostGIS is not available (install postgresql-15-postgis-3 on the server, or have a superuser run "
                + "CREATE EXTENSION postgis in the database): \(reason)"
        case .invalidSchema(let name):
            "invalid schema name \"\(name)\": use 1 to 63 lower-case letters, digits and underscores, not starting with a digit"
        case .server(let reason): "PostgreSQL error: \(reason)"
        case .placesAddedDuringFirstLoad:
            "places were added while this first load ran, so it imported nothing: run the import again"
        }
    }

    /// The server's own message and SQLSTATE of an error it answered, if it was one.
    static func serverMessage(_ error: any Error) -> (state: String, message: String)? {
        guard let error = error as? PSQLError, error.code == .server, let info = error.serverInfo else { return nil }
        return (info[.sqlState] ?? "", info[.message] ?? "")
    }

    /// What went wrong while connecting and logging in, from postgres-nio's error (whose own
    /// description is a generic "Database error" to keep details out of logs).
    static func connecting(_ error: any Error, to url: PostgresDatabaseURL) -> PostgresEngineError {
        if let (state, message) = serverMessage(error) {
            switch state {
            // invalid_password, invalid_authorization_specification (no pg_hba.conf entry…)
            case "28P01", "28000": return .authenticationFailed(user: url.username, reason: message)
            case "3D000": return .databaseMissing(url.database)
            default: return .server("\(message) (SQLSTATE \(state))")
            }
        }
        if let error = error as? PSQLError {
            switch error.code {
            case .authMechanismRequiresPassword: return .passwordRequired(user: url.username)
            case .connectionError, .serverClosedConnection, .uncleanShutdown:
                return .unreachable(
                    server: "\(url.host):\(url.port)",
                    reason: error.underlying.map { String(describing: $0) } ?? "\(error.code)")
            default: return .server(String(reflecting: error))
            }
        }
        return .unreachable(server: "\(url.host):\(url.port)", reason: String(describing: error))
    }
}
