import BurgerMapCore
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// Every setting of the service, declared once: `burgermap serve`'s options fill it (each option
/// also read from `BURGERMAP_<NAME>`, see `EnvironmentOptions`), tests pass one of their own, and
/// the service reads each field where it is used (`ServiceDependencies.configuration`).
public struct ServiceConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var dataDirectory: URL
    public var logLevel: Logger.Level
    /// How long access tokens live (`--access-token-ttl`, 5 minutes by default).
    public var accessTokenLifetime: Duration = .seconds(300)
    /// How long refresh tokens live (`--refresh-token-ttl`, 30 days by default).
    public var refreshTokenLifetime: Duration = .seconds(30 * 24 * 3600)
    /// How long a used refresh token may be presented again for the same successor
    /// (`--refresh-grace`, 30 s; zero turns retries off).
    public var refreshGrace: Duration = .seconds(30)
    /// Where `/metrics` is served instead of the API port (`--metrics-address`, loopback only);
    /// `nil` serves it on the API port.
    public var metricsAddress: LoopbackAddress?
    /// Who may read `/metrics` on the API port besides clients on this machine (loopback):
    /// `--metrics-client` (it shows route and login counts; the default answers others `403`).
    public var metricsClients: [IPNetwork] = []
    /// Connection timeouts and the connection cap.
    public var connectionLimits = ConnectionLimits()
    /// The origin of every absolute link the service writes (`--public-url https://HOST`: OGC
    /// links, TileJSON's tiles); `nil` builds them from each request's `Host`, and the answers
    /// that may be cached by others then vary by it.
    public var publicURL: URL?
    /// Reverse proxies whose `Forwarded` / `X-Forwarded-For` headers name the client (`--trusted-proxy`).
    public var trustedProxies = TrustedProxies()
    /// Whether every request ends with an access log line (`--access-log`).
    public var accessLog = true
    /// Where photo files live (`--photo-dir`); `nil` is the data folder's `photos/`. Instances
    /// that share one database share this folder too.
    public var photoDirectory: URL?
    /// Photos in an S3-compatible bucket instead, and how their URLs are answered.
    public var photoStore = PhotoStoreConfiguration()
    /// The web map's tiles and Leaflet folder.
    public var webMap = WebMapSettings()
    /// The master secret (`BURGERMAP_SECRET`); `nil` keeps one in the data folder.
    public var secret: ServiceSecret?
    /// The LookForRealBurger app's routes (`--lslp-key`); `nil` leaves them out.
    public var lslp: LSLPSettings?
    /// Terms that review titles and texts, comments, nicknames and bios may not contain
    /// (`--blocked-words FILE`).
    public var blockedWords = BlockedWords.none
    /// How often each user may write each kind of thing (`--write-limit KIND=COUNT/SECONDS`).
    public var writeLimits = WriteLimits()
    /// When reports hide content (`--report-threshold`).
    public var reportRules = ReportRules()
    /// How long events are kept for the service's readers (`--event-retention`, 7 days).
    public var eventRetention: Duration = .seconds(604_800)
    /// Whether each event is also written to the log, one line each (`--log-events`).
    public var logsEvents = false
    /// When login failures slow an account or a client down.
    public var loginThrottle = LoginThrottle.Policy()
    /// The clock of login throttling and event pruning; tests pass one they move by hand
    /// (requests read theirs through `ServiceClock`).
    public var clock: @Sendable () -> Timestamp = { Timestamp.now() }
    /// The IANA time zone of places added through the API without one (`--default-timezone`;
    /// checked by `PlaceTimeZone` at start). Without it such places have no `open_now`.
    public var defaultTimeZone: String?
    /// The cores that searches of two characters may occupy at once (half of them): such a
    /// query has no trigram, so both engines scan the folded names for it (see
    /// `PlacesController.search`).
    public var searchScans = CoreBudget(cores: ProcessInfo.processInfo.activeProcessorCount / 2)
    /// Streams, push and their limits.
    public var notifications = NotificationConfiguration()
    /// The vector tiles' cache and `Cache-Control`.
    public var tiles = TileConfiguration()
    /// The most matches an OGC items page counts exactly (`numberMatched`); tests set less.
    public var featureMatchBound = FeatureBounds.numberMatched
    /// With read replicas: how long after a write its writer's signed-in reads stay on the
    /// primary (`--read-your-writes`, 5 s).
    public var readYourWrites: Duration = .seconds(5)

    public init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL, logLevel: Logger.Level = .info) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
    }
}
