import Logging
import PostgresNIO

/// How the engine's pools (the primary's and each replica's) are set up: every connection opened
/// when the pool starts and kept, and a keep-alive of the engine's own instead of postgres-nio's.
///
/// Why: postgres-nio's pool schedules a keep-alive timer, and for a connection above its minimum
/// an idle timer too, each time a query gives its connection back, and cancels them at the next
/// lease; each timer is a task that wakes the pool's run loop. Measured on this 2-core machine
/// (`burgermap-bench postgres-round-trip`, 3,000 of each, two rounds), with neither timer
/// against postgres-nio's defaults: `SELECT 1` through the pool 154–160 µs against 214–253 µs, a
/// nearby search 431–458 µs against 549–663 µs, and the client's CPU 1.3 against 2.1–2.3 s.
/// Either timer alone saved nothing: the run loop's wake-up is most of the cost.
///
/// What it changes for an operator: an instance holds its whole pool open from the start
/// (`maximumConnections`: 20 for the primary, 10 per replica), as it did under load before;
/// PgBouncer is the answer when instances × pool size nears `max_connections`
/// (docs/engines.md). A connection that the server or the network closes is replaced by the
/// pool, which keeps its minimum.
enum PostgresPool {
    /// How often `keepAlive` sends its pings: postgres-nio's own default frequency.
    static let keepAliveInterval: Duration = .seconds(30)
    /// The statement of a ping; `pg_stat_activity.query` shows it on an idle connection.
    static let pingStatement = "SELECT 1 /* burgermap keep-alive */"

    /// The pool's configuration for `url`, with `startup` parameters and `maximumConnections`,
    /// all of them kept open. Its connections show `applicationName(schema:)` in
    /// `pg_stat_activity`.
    static func configuration(
        url: PostgresDatabaseURL, schema: String?, startup: [(String, String)], maximumConnections: Int
    ) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: .disable)
        configuration.options.additionalStartupParameters =
            startup + [("application_name", applicationName(schema: schema))]
        configuration.options.maximumConnections = maximumConnections
        // No connection above the minimum: no idle timer at each release.
        configuration.options.minimumConnections = maximumConnections
        // `keepAlive(_:connections:logger:)` instead: no timer at each release.
        configuration.options.keepAliveBehavior = nil
        return configuration
    }

    /// The name of a pool's connections in `pg_stat_activity`: `burgermap pool`, and the schema
    /// in parentheses when the engine has one of its own.
    static func applicationName(schema: String?) -> String {
        "burgermap pool" + (schema.map { " (\($0))" } ?? "")
    }

    /// Every `keepAliveInterval` until cancelled, `ping`s as many connections as the pool holds:
    /// traffic that keeps a firewall or NAT between the instance and the server from dropping
    /// a connection that sat idle, as postgres-nio's keep-alive did.
    static func keepAlive(_ client: PostgresClient, connections: Int, logger: Logger) async {
        while (try? await Task.sleep(for: keepAliveInterval)) != nil {
            await ping(client, connections: connections, logger: logger)
        }
    }

    /// Sends `connections` pings through the pool at once, so that they take about as many
    /// different connections (a busy connection needs none: its queries are its traffic). A ping
    /// that fails is left alone: the pool replaces a connection that broke, and the health
    /// monitor reports a server that is gone.
    static func ping(_ client: PostgresClient, connections: Int, logger: Logger) async {
        await withDiscardingTaskGroup { group in
            for _ in 0..<connections {
                group.addTask {
                    do {
                        for try await _ in try await client.query(
                            PostgresQuery(unsafeSQL: pingStatement), logger: logger)
                        {}
                    } catch {
                        logger.debug("keep-alive ping failed", metadata: ["error": "\(String(reflecting: error))"])
                    }
                }
            }
        }
    }
}
