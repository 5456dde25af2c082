import AsyncHTTPClient
import Foundation

/// One entry of a listing.
public struct S3ObjectInfo: Sendable, Equatable {
    public var key: String
    public var size: Int64
    public var lastModified: Date

    public init(key: String, size: Int64, lastModified: Date) {
        self.key = key
        self.size = size
        self.lastModified = lastModified
    }
}

/// A GET's answer: the headers read, the body still streaming (read it, or drop it, before the
/// connection can serve another request).
public struct S3Object: Sendable {
    public var contentLength: Int64?
    public var contentType: String?
    /// As the store sent it, quotes included (`"…"`).
    public var eTag: String?
    /// `x-amz-meta-*` headers with the prefix removed, names lowercased.
    public var metadata: [String: String]
    public var body: HTTPClientResponse.Body
}

/// A HEAD's answer.
public struct S3Head: Sendable {
    public var size: Int64
    /// As the store sent it, quotes included (`"…"`).
    public var eTag: String?
    public var contentType: String?
    public var cacheControl: String?
    /// `x-amz-meta-*` headers with the prefix removed, names lowercased.
    public var metadata: [String: String]
    public var lastModified: Date?
}

/// Why a request to the store failed.
public enum S3Error: Error, Sendable, CustomStringConvertible {
    /// No answer: connection refused, DNS, a timeout, TLS. The store is away (or the network).
    case unreachable(String)
    /// 403: AccessDenied, SignatureDoesNotMatch, InvalidAccessKeyId, RequestTimeTooSkewed…
    case denied(code: String, message: String)
    case noSuchBucket(String)
    /// Any other error answer, with the code and message of S3's XML error body when it had one.
    case rejected(status: Int, code: String, message: String)
    /// An answer that is not what S3 sends (a listing that does not parse, a missing header).
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .unreachable(let reason): "object storage unreachable: \(reason)"
        case .denied(let code, let message): "object storage refused access (\(code)): \(message)"
        case .noSuchBucket(let bucket): "object storage has no bucket \"\(bucket)\""
        case .rejected(let status, let code, let message):
            "object storage answered \(status)\(code.isEmpty ? "" : " \(code)")\(message.isEmpty ? "" : ": \(message)")"
        case .invalidResponse(let reason): "object storage sent an unexpected answer: \(reason)"
        }
    }
}

/// How often and how long a failed request is tried again: `attempts` in all, waiting
/// `firstDelay`, then twice that, and so on, each wait spread by a factor in [0.5, 1.5) drawn
/// from `seed` and the request (so that many clients do not retry in step, yet a test sees the
/// same waits every run).
public struct S3RetryPolicy: Sendable {
    public var attempts: Int
    public var firstDelay: Duration
    public var seed: UInt64
    /// Injectable so that tests do not wait on the wall clock.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        attempts: Int = 4, firstDelay: Duration = .milliseconds(100), seed: UInt64 = 0x5EED,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.attempts = attempts
        self.firstDelay = firstDelay
        self.seed = seed
        self.sleep = sleep
    }

    /// 4 attempts from 100 ms (about 0.1 + 0.2 + 0.4 s of waiting in all), seeded per process.
    public static let standard = S3RetryPolicy(seed: UInt64.random(in: 0...UInt64.max))

    /// The wait after failed attempt `attempt` (1-based); `salt` tells requests apart.
    public func delay(afterAttempt attempt: Int, salt: UInt64) -> Duration {
        // SplitMix64 of the seed, the request and the attempt: a fixed, well-spread fraction.
        var z = seed &+ salt &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(attempt) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let spread = 0.5 + Double(z >> 11) / Double(1 << 53)
        return firstDelay * (Double(1 << min(attempt - 1, 20)) * spread)
    }
}
