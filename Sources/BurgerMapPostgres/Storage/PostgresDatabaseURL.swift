import Foundation

/// Where a PostgreSQL database is: `postgres://user:password@host:port/database` (also
/// `postgresql://`). User, password and database are percent-decoded, so a password may hold
/// `@`, `:` or `/` as `%40`, `%3A`, `%2F`. The port defaults to 5432 and the database to the user.
/// Query parameters (`?sslmode=…`) are not read: the engine speaks to a server on a trusted
/// network or through a local socket-forwarding proxy, without TLS.
public struct PostgresDatabaseURL: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String

    public init(host: String, port: Int = 5432, username: String, password: String?, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Parses a URL; the error says which part is wrong (never repeating the password).
    public init(_ text: String) throws {
        guard let components = URLComponents(string: text) else {
            throw PostgresEngineError.invalidURL("not a URL; expected postgres://user:password@host:port/database")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw PostgresEngineError.invalidURL("the scheme must be postgres:// or postgresql://")
        }
        guard var host = components.host, !host.isEmpty else {
            throw PostgresEngineError.invalidURL("no host; expected postgres://user:password@host:port/database")
        }
        // An IPv6 literal comes in brackets ("[::1]"); the socket wants it bare.
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let username = components.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !username.isEmpty
        else {
            throw PostgresEngineError.invalidURL("no user name; expected postgres://user:password@host:port/database")
        }
        let password = try components.percentEncodedPassword.map { encoded in
            guard let password = encoded.removingPercentEncoding else {
                throw PostgresEngineError.invalidURL("the password has a malformed percent escape")
            }
            return password
        }
        let path = String(components.percentEncodedPath.drop { $0 == "/" })
        guard !path.contains("/"), let database = path.removingPercentEncoding else {
            throw PostgresEngineError.invalidURL("the path must be one database name")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw PostgresEngineError.invalidURL("the port must be between 1 and 65535")
        }
        self.init(
            host: host, port: components.port ?? 5432, username: username, password: password,
            database: database.isEmpty ? username : database)
    }

    /// The URL without its password, for messages and logs.
    public var redacted: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }
}
