import ArgumentParser
import BurgerMap
import BurgerMapCore
import Foundation
import Hummingbird
import Logging

/// The `burgermap` command line: `serve`, `import`, and the operator's `backup`, `sources` and
/// `remove-source`.
@main
struct BurgerMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "burgermap",
        abstract: "A map-based place review service.",
        version: BurgerMapVersion.current,
        subcommands: [
            Serve.self, Import.self, Backup.self, ListSources.self, RemoveSource.self, Admin.self, Photos.self,
        ])

    /// Runs the command line, each option also read from its `BURGERMAP_<NAME>` variable
    /// (`EnvironmentOptions`).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        await main(EnvironmentOptions.arguments(arguments, environment: ProcessInfo.processInfo.environment))
    }
}

/// Options that every subcommand shares.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "Folder for the database and photos.")
    var dataDir: String = "burgermap-data"

    var dataDirectory: URL { URL(fileURLWithPath: dataDir, isDirectory: true) }

    /// Fails, saying where it looked and how to point elsewhere, when the data folder holds no
    /// database: the commands that only read or change what is there never make one.
    func requireDatabase() throws {
        let file = dataDirectory.appendingPathComponent("burgermap.sqlite")
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw NoDatabase(file: file.path)
        }
    }
}

/// A command that only reads or changes what is there met a data folder without a database.
struct NoDatabase: Error, CustomStringConvertible {
    let file: String
    var description: String {
        "no database at \(file): pass --data-dir with the folder `burgermap serve` uses, "
            + "or --database postgres://… (BURGERMAP_DATABASE_URL) for PostgreSQL"
    }
}

/// `burgermap serve`: runs the HTTP API.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the HTTP API.",
        discussion: """
            Every option can also be set as BURGERMAP_<OPTION> (--photo-dir: BURGERMAP_PHOTO_DIR); the \
            command line wins. Secrets are read from the environment only: BURGERMAP_SECRET (the master \
            secret, at least 32 bytes; required with --database, the same on every instance), \
            BURGERMAP_JWT_SECRET (the access tokens' key), BURGERMAP_VAPID_PRIVATE_KEY (Web Push's key), \
            BURGERMAP_DATABASE_URL (as --database), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (an \
            s3:// photo store).
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080
    @Option(help: "Lifetime of access tokens, in seconds.") var accessTokenTtl = 300
    @Option(help: "Lifetime of refresh tokens, in seconds.") var refreshTokenTtl = 30 * 24 * 3600
    @Option(help: "Seconds a used refresh token may be retried for the same answer (0: never).") var refreshGrace = 30
    @Option(help: "Seconds a keep-alive connection may stay idle.") var idleTimeout = 30
    @Option(help: "Seconds a request head may take to arrive.") var headerTimeout = 10
    @Option(help: "Slowest accepted request body, in bytes per second (judged after 10 s).") var minBodyRate = 1024
    @Option(help: "Most open connections (default: the descriptor limit less 256).") var maxConnections: Int?
    @Option(help: "Serve /metrics on this loopback HOST:PORT only, not on the API port.") var metricsAddress: String?
    @Option(
        help: ArgumentHelp(
            "The origin of every absolute link (OGC, TileJSON), e.g. https://burgers.example; default: each request's Host.",
            valueName: "url"))
    var publicUrl: String?
    @Option(
        name: .customLong("metrics-client"),
        help: "Besides this machine, who may read /metrics on the API port (address or CIDR); repeatable.")
    var metricsClients: [String] = []
    @Option(
        name: .customLong("trusted-proxy"),
        help:
            "A reverse proxy (address or CIDR, IPv4 or IPv6) whose Forwarded/X-Forwarded-For headers name the client; repeatable."
    )
    var trustedProxies: [String] = []
    @Option(help: "One log line per request at its end: on or off.") var accessLog: Switch = .on
    @Option(help: "Folder for photo files, shared by every instance of one database (default: DATA_DIR/photos).")
    var photoDir: String?
    @Option(help: "Tile URL template of the web map at / ({s}, {z}, {x}, {y}; empty: no tiles).")
    var tileURL = WebMapSettings().tileURL
    @Option(help: "Attribution of the web map's tiles (HTML).") var tileAttribution = WebMapSettings().tileAttribution
    @Option(help: "Folder of Leaflet (Debian's libjs-leaflet), served under /map/.")
    var leafletDir = WebMapSettings().leafletDirectory.path
    @Option(
        help:
            "Turns on the LookForRealBurger app's routes: the SesacKey its requests carry (or BURGERMAP_LSLP_KEY)."
    )
    var lslpKey: String?
    @Option(
        help:
            "A file of terms (one a line) that review titles and texts, comments, nicknames and bios may not contain."
    )
    var blockedWords: String?
    @Option(
        name: .customLong("write-limit"),
        help:
            "A per-user write limit KIND=COUNT/SECONDS (review, comment, reaction, follow, report, upload); repeatable."
    )
    var writeLimitOptions: [String] = []
    @Option(
        help:
            "How many users' open reports hide a review or comment until a moderator decides (0: reports never hide)."
    )
    var reportThreshold = ReportRules().hideThreshold
    @Option(help: "How many seconds events are kept for the service's readers (default 7 days).")
    var eventRetention = 604_800
    @Flag(help: "Write one log line for every event, as a subscriber of this instance sees it.")
    var logEvents = false
    @Option(help: "IANA time zone (for example Asia/Seoul) of places added through the API without one, for open_now.")
    var defaultTimezone: String?
    @Option(help: "Product ids of the app's restaurant posts, comma-separated.")
    var lslpRestaurantProducts = LSLPSettings.defaultRestaurantProducts.joined(separator: ",")
    @Option(help: "Product ids of the app's review posts, comma-separated.")
    var lslpReviewProducts = LSLPSettings.defaultReviewProducts.joined(separator: ",")
    @OptionGroup var storage: StorageOptions
    @OptionGroup var notifications: NotificationOptions
    @OptionGroup var tiles: TileOptions
    @OptionGroup var photos: PhotoOptions
    @OptionGroup var replicas: ReplicaOptions

    func validateLimits() throws {
        guard accessTokenTtl > 0, refreshTokenTtl > 0 else {
            throw ValidationError("token lifetimes must be positive numbers of seconds")
        }
        guard (0...1000).contains(reportThreshold) else {
            throw ValidationError("--report-threshold must be 0 to 1000")
        }
        guard (60...31_536_000).contains(eventRetention) else {
            throw ValidationError("--event-retention must be 60 to 31536000 seconds")
        }
        guard (0...3600).contains(refreshGrace) else {
            throw ValidationError("--refresh-grace must be 0 to 3600 seconds")
        }
        guard idleTimeout > 0, headerTimeout > 0, minBodyRate >= 0, (maxConnections ?? 1) > 0 else {
            throw ValidationError("timeouts and the connection cap must be positive, the body rate not negative")
        }
        if let publicUrl {
            guard let url = URL(string: publicUrl), ["http", "https"].contains(url.scheme ?? ""),
                url.host?.isEmpty == false, url.path.isEmpty || url.path == "/", url.query == nil
            else {
                throw ValidationError(
                    "--public-url must be http(s)://HOST[:PORT] with no path, e.g. https://burgers.example")
            }
        }
        for client in metricsClients where IPNetwork(client) == nil {
            throw ValidationError("--metrics-client '\(client)' is not an IPv4 or IPv6 address or CIDR range")
        }
        for proxy in trustedProxies where IPNetwork(proxy) == nil {
            throw ValidationError(
                "--trusted-proxy '\(proxy)' is not an IPv4 or IPv6 address or CIDR range (e.g. 10.0.0.0/8, ::1, fd00::/8)"
            )
        }
    }

    /// The LookForRealBurger routes' settings, when a key is given by option or environment.
    func lslpSettings() throws -> LSLPSettings? {
        guard let key = lslpKey ?? ProcessInfo.processInfo.environment["BURGERMAP_LSLP_KEY"], !key.isEmpty else {
            return nil
        }
        func products(_ list: String, _ option: String) throws -> [String] {
            let values = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            guard !values.isEmpty else { throw ValidationError("--\(option) needs at least one product id") }
            return values
        }
        let settings = LSLPSettings(
            key: key, restaurantProducts: try products(lslpRestaurantProducts, "lslp-restaurant-products"),
            reviewProducts: try products(lslpReviewProducts, "lslp-review-products"))
        guard Set(settings.restaurantProducts).isDisjoint(with: settings.reviewProducts) else {
            throw ValidationError("a product id cannot name both restaurants and reviews")
        }
        return settings
    }

    /// The write limits: the defaults, with those given by `--write-limit`.
    func writeLimits() throws -> WriteLimits {
        var limits = WriteLimits()
        for option in writeLimitOptions {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let action = WriteAction(rawValue: parts[0]), let limit = WriteLimit(parts[1])
            else {
                throw ValidationError(
                    "--write-limit \(option): expected KIND=COUNT/SECONDS, KIND one of \(WriteAction.allCases.map(\.rawValue).joined(separator: ", ")), SECONDS 1 to 86400"
                )
            }
            limits[action] = limit
        }
        return limits
    }

    func validate() throws {
        try validateLimits()
        _ = try writeLimits()
        _ = try lslpSettings()
        try replicas.validate(databaseURL: storage.databaseURL)
        if let defaultTimezone, PlaceTimeZone.zone(named: defaultTimezone) == nil {
            throw ValidationError(
                "--default-timezone \(defaultTimezone) is not an IANA time zone name such as Asia/Seoul")
        }
        if let metricsAddress {
            do {
                _ = try LoopbackAddress(parsing: metricsAddress)
            } catch {
                throw ValidationError("--metrics-address \(metricsAddress): \(error)")
            }
        }
    }

    func run() async throws {
        // Every line on standard error in swift-log's stream layout, cheaper per line (the access
        // log writes one per request).
        LoggingSystem.bootstrap { ServiceLogHandler(label: $0) }
        var configuration = ServiceConfiguration(host: host, port: port, dataDirectory: storage.data.dataDirectory)
        configuration.accessTokenLifetime = .seconds(accessTokenTtl)
        configuration.refreshTokenLifetime = .seconds(refreshTokenTtl)
        configuration.refreshGrace = .seconds(refreshGrace)
        configuration.connectionLimits.idleTimeout = .seconds(idleTimeout)
        configuration.connectionLimits.headerTimeout = .seconds(headerTimeout)
        configuration.connectionLimits.minimumBodyRate = minBodyRate
        if let maxConnections { configuration.connectionLimits.maximumConnections = maxConnections }
        configuration.metricsAddress = try metricsAddress.map { try LoopbackAddress(parsing: $0) }
        configuration.trustedProxies = TrustedProxies(trustedProxies.compactMap(IPNetwork.init))
        configuration.metricsClients = metricsClients.compactMap(IPNetwork.init)
        configuration.publicURL = publicUrl.flatMap(URL.init(string:))
        configuration.accessLog = accessLog == .on
        configuration.defaultTimeZone = defaultTimezone
        configuration.photoDirectory = photoDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
        configuration.secret = try secret()
        configuration.webMap.tileURL = tileURL
        configuration.webMap.tileAttribution = tileAttribution
        configuration.webMap.leafletDirectory = URL(fileURLWithPath: leafletDir, isDirectory: true)
        configuration.lslp = try lslpSettings()
        configuration.writeLimits = try writeLimits()
        configuration.reportRules = ReportRules(hideThreshold: reportThreshold)
        configuration.eventRetention = .seconds(eventRetention)
        configuration.logsEvents = logEvents
        notifications.apply(to: &configuration.notifications)
        tiles.apply(to: &configuration.tiles)
        try photos.apply(to: &configuration.photoStore)
        replicas.apply(to: &configuration)
        if let blockedWords {
            do {
                configuration.blockedWords = try BlockedWords(contentsOf: URL(fileURLWithPath: blockedWords))
            } catch {
                throw ValidationError("--blocked-words \(blockedWords): \(error.localizedDescription)")
            }
        }
        let logger = Logger(label: "burgermap")
        try await storage.withStores(logger: logger, replicas: try replicas.postgresOptions()) {
            [configuration] stores, _ in
            try await buildServiceGroup(configuration, stores: stores).run()
        }
    }

    /// `BURGERMAP_SECRET`, which PostgreSQL requires: instances of one database must share the
    /// secret that signs their cursors and tokens, and a secret made up in each data folder
    /// would not be shared.
    func secret() throws -> ServiceSecret? {
        let secret: ServiceSecret?
        do {
            secret = try ServiceSecret.fromEnvironment(ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(error)")
        }
        if secret == nil, storage.databaseURL != nil {
            throw ValidationError(
                "with --database, set BURGERMAP_SECRET (the same on every instance; at least 32 bytes, for example `openssl rand -hex 32`)"
            )
        }
        return secret
    }
}

/// An option that is `on` or `off`.
enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
}
