import BurgerMapCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How long a connection may take over each step of a request, and how many may be open.
/// Every limit closes the connection cleanly and is counted in `/metrics` as
/// `burgermap_connections_closed_total{reason=…}`.
public struct ConnectionLimits: Sendable {
    /// A keep-alive connection with no request in progress is closed after this long (`--idle-timeout`).
    public var idleTimeout: Duration = .seconds(30)
    /// A request's head must be complete this long after its first byte arrived (`--header-timeout`).
    public var headerTimeout: Duration = .seconds(10)
    /// While the service waits for body bytes, they must arrive at least this fast on average
    /// (`--min-body-rate`, bytes per second) once `bodyRateGrace` of waiting has passed: an upload
    /// at 1 byte/s is closed after the grace period, a slow but moving phone upload is not.
    public var minimumBodyRate = 1024
    /// How long the service waits on a body before the rate is judged.
    public var bodyRateGrace: Duration = .seconds(10)
    /// After an early answer (sent before the request body was read, e.g. `413`), the rest of the
    /// body is read and dropped for at most this long, so that a client that writes its whole body
    /// before reading still receives the answer; then the connection closes.
    public var drainTimeout: Duration = .seconds(10)
    /// The most body bytes dropped after an early answer.
    public var drainBytes = 256 << 20
    /// The most open connections (`--max-connections`). At the cap, a new connection takes the
    /// place of the connection that has been idle longest; when none is idle, it is closed at once.
    public var maximumConnections: Int

    /// The defaults, with the connection cap below the process's descriptor limit.
    public init() {
        maximumConnections = Self.defaultMaximumConnections()
    }

    /// Descriptors kept free for the database, photo files and logs.
    static let reservedDescriptors = 256

    /// Raises the soft descriptor limit to the hard one (the kernel starts processes lower) and
    /// leaves room for the service's own files.
    static func defaultMaximumConnections() -> Int {
        #if canImport(Glibc)
            var limit = rlimit()
            if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
                if limit.rlim_cur < limit.rlim_max {
                    limit.rlim_cur = limit.rlim_max
                    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
                    _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
                }
                let descriptors = limit.rlim_cur >= UInt64(1 << 20) ? 1 << 20 : Int(limit.rlim_cur)
                return max(16, descriptors - reservedDescriptors)
            }
        #endif
        return 4096
    }
}
