import Foundation

/// Why a push subscription's endpoint was refused.
public enum PushEndpointRejection: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not an absolute URL with a host, or it has a fragment.
    case notAURL
    /// Over `PushEndpointPolicy.maxLength` UTF-8 bytes.
    case tooLong
    /// Not `https` (plain `http` is only for listed test hosts with `allowHTTP`).
    case notHTTPS
    /// The host (lowercased) is neither a known push service nor a listed one, or the port is
    /// not the one allowed for it.
    case hostNotAllowed(String)
    /// The URL carries a user name or password.
    case credentialsInURL

    public var description: String {
        switch self {
        case .notAURL: "the endpoint is not an absolute URL without a fragment"
        case .tooLong: "the endpoint is longer than \(PushEndpointPolicy.maxLength) bytes"
        case .notHTTPS: "the endpoint is not https"
        case .hostNotAllowed(let host): "the endpoint's host \(host) is not a known push service"
        case .credentialsInURL: "the endpoint carries credentials"
        }
    }
}

/// Which push subscription endpoints the server will send to: the SSRF guard of Web Push.
///
/// A subscription's endpoint is a URL a client hands in, and the server later POSTs to it on
/// its own, so an unchecked endpoint would let anyone make the server call its own network
/// (`http://127.0.0.1:5432/`, a cloud metadata address, an internal admin page). Only the
/// browsers' push services are allowed, over https on port 443, plus the hosts the operator
/// lists with `--push-endpoint-host` (a test push service, a self-hosted one such as ntfy).
/// IP literals and `localhost` pass only when listed, since nothing else can match them.
public struct PushEndpointPolicy: Sendable {
    /// The browsers' push services, each allowed as the host itself or any subdomain of it.
    public static let knownServiceHosts: [String] = [
        "fcm.googleapis.com",  // Chrome, Edge, Opera, Samsung Internet (Firebase Cloud Messaging)
        "android.googleapis.com",  // older Chrome subscriptions (legacy GCM endpoints)
        "updates.push.services.mozilla.com",  // Firefox (autopush)
        "push.services.mozilla.com",  // Firefox, other autopush hosts
        "web.push.apple.com",  // Safari (Apple Push Notification service)
        "notify.windows.com",  // Windows Push Notification Services: *.notify.windows.com
    ]

    /// The longest endpoint taken, in UTF-8 bytes: real ones are a few hundred, and the value is
    /// stored per subscription.
    public static let maxLength = 1024

    /// An operator-listed host: exact name (lowercased, no brackets), and the port it must use
    /// (nil: the scheme's default).
    struct ExtraHost: Sendable, Equatable {
        let host: String
        let port: Int?
    }

    let extraHosts: [ExtraHost]
    let allowHTTP: Bool

    /// A policy allowing the known push services and `extraHosts`, each `host` or `host:port`
    /// (`[v6-address]:port` for IPv6); with `allowHTTP`, the listed hosts may also use plain http.
    public init(extraHosts: [String] = [], allowHTTP: Bool = false) {
        self.extraHosts = extraHosts.compactMap(Self.parseExtraHost)
        self.allowHTTP = allowHTTP
    }

    /// The endpoint as a URL when the server may send to it, else why not.
    public func check(_ endpoint: String) -> Result<URL, PushEndpointRejection> {
        guard endpoint.utf8.count <= Self.maxLength else { return .failure(.tooLong) }
        guard let components = URLComponents(string: endpoint), let scheme = components.scheme?.lowercased(),
            let rawHost = components.percentEncodedHost, !rawHost.isEmpty, let url = components.url,
            // Foundation quietly escapes spaces and the like; take only text that is a URL as is.
            url.absoluteString == endpoint
        else { return .failure(.notAURL) }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            return .failure(.credentialsInURL)
        }
        guard components.percentEncodedFragment == nil else { return .failure(.notAURL) }
        let isHTTPS = scheme == "https"
        guard isHTTPS || (scheme == "http" && allowHTTP) else { return .failure(.notHTTPS) }

        let host = Self.normalizedHost(rawHost)
        // A percent-escaped host could be read differently by the HTTP client than here.
        guard !host.contains("%") else { return .failure(.hostNotAllowed(host)) }
        let defaultPort = isHTTPS ? 443 : 80
        let port = components.port ?? defaultPort
        if extraHosts.contains(where: { $0.host == host && ($0.port ?? defaultPort) == port }) {
            return .success(url)
        }
        guard isHTTPS, port == 443, !Self.isIPLiteralOrLocalhost(host),
            Self.knownServiceHosts.contains(where: { host == $0 || host.hasSuffix("." + $0) })
        else { return .failure(.hostNotAllowed(host)) }
        return .success(url)
    }

    /// `host` lowercased, without the brackets of an IPv6 literal.
    static func normalizedHost(_ host: String) -> String {
        let lowered = host.lowercased()
        guard lowered.hasPrefix("["), lowered.hasSuffix("]") else { return lowered }
        return String(lowered.dropFirst().dropLast())
    }

    /// An IPv6 literal, anything ending in a numeric label (`127.0.0.1`, but also `127.1` and
    /// `2130706433`, which resolvers read as IPv4), or `localhost` and its subdomains.
    static func isIPLiteralOrLocalhost(_ host: String) -> Bool {
        if host.contains(":") || host == "localhost" || host.hasSuffix(".localhost") { return true }
        guard let last = host.split(separator: ".", omittingEmptySubsequences: false).last else { return false }
        return !last.isEmpty && (last.allSatisfy(\.isNumber) || last.hasPrefix("0x"))
    }

    /// `host`, `host:port` or `[v6]:port` as an `ExtraHost`; nil for an empty or bad entry.
    /// Whether `entry` is a `--push-endpoint-host` value this policy understands.
    public static func isValidExtraHost(_ entry: String) -> Bool { parseExtraHost(entry) != nil }

    static func parseExtraHost(_ entry: String) -> ExtraHost? {
        let text = entry.trimmingCharacters(in: .whitespaces).lowercased()
        var host = text
        var port: Int?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { return nil }
                port = number
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            guard let number = Int(text[text.index(after: colon)...]) else { return nil }
            port = number
        }
        guard !host.isEmpty, (port ?? 1) > 0, (port ?? 1) <= 65535 else { return nil }
        return ExtraHost(host: host, port: port)
    }
}
