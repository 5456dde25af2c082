import AsyncHTTPClient
import BurgerMapCore
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Sends one encrypted push to a push service (RFC 8030) with a VAPID `Authorization`
/// (RFC 8292), over async-http-client: redirects are never followed (an endpoint must not send
/// the server elsewhere) and every request has a deadline, so a slow endpoint holds a worker
/// for `timeout` at most.
struct PushSender: Sendable {
    let client: HTTPClient
    let vapid: VAPIDKeys
    /// The VAPID `sub` claim (`--vapid-subject`): how a push service reaches the operator.
    let subject: String
    let timeout: Duration

    /// What the push service said.
    enum Result: Equatable {
        case accepted
        /// `429`, `5xx`, a timeout or a connection that failed: try again, after the service's
        /// `Retry-After` when it gave one.
        case retry(after: Duration?)
        /// `404`/`410`: the browser dropped the subscription.
        case gone
        /// Any other answer (`400`, `401`, `403`, `413`…): trying again would not help.
        case refused(Int)
    }

    /// The process's one push client: it lives as long as the process (so it is never shut
    /// down, and several services in one process, as in tests, share its connections).
    static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(10))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// POSTs `body` (already `aes128gcm`-encrypted) to `endpoint`.
    func send(_ body: [UInt8], to endpoint: URL, ttl: Int, urgency: String) async -> Result {
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.method = .POST
        do {
            request.headers.add(
                name: "Authorization", value: try vapid.authorization(endpoint: endpoint, subject: subject, now: Date())
            )
        } catch {
            return .refused(0)
        }
        request.headers.add(name: "TTL", value: "\(ttl)")
        request.headers.add(name: "Urgency", value: urgency)
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
            // The answer's body says nothing the status does not; it is read (bounded) and dropped.
            _ = try? await response.body.collect(upTo: 16 * 1024)
            switch response.status.code {
            case 200..<300: return .accepted
            case 404, 410: return .gone
            case 429, 500..<600: return .retry(after: Self.retryAfter(response.headers.first(name: "Retry-After")))
            default: return .refused(Int(response.status.code))
            }
        } catch {
            return .retry(after: nil)
        }
    }

    /// `Retry-After` in seconds (the date form is rare from push services and taken as absent),
    /// at most an hour.
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(min(seconds, 3_600))
    }
}
