import BurgerMapCore
import Foundation
import HTTPTypes
import Hummingbird

/// The scheme and authority a client reached the service by (`http://host:port`), for the
/// absolute links that map clients and GIS tools need: OGC API – Features' links (GDAL, QGIS,
/// OWSLib follow absolute links only) and TileJSON's tile template (MapLibre).
///
/// From the request's `Host`, and, when the socket peer is a trusted proxy (`--trusted-proxy`),
/// from what that proxy forwarded: RFC 7239 `Forwarded` (`proto=`, `host=`) or else
/// `X-Forwarded-Proto` / `X-Forwarded-Host`. Of a list, only the right-most element counts: the
/// one the trusted proxy wrote; anything left of it came from further away. A value that is not a
/// valid host[:port] (or a scheme other than http and https) is ignored, so that no header can
/// put other text into the links; without a usable host the links name `localhost`.
struct RequestOrigin: Sendable, Equatable {
    var scheme: String
    var authority: String

    var text: String { "\(scheme)://\(authority)" }

    init(scheme: String, authority: String) {
        self.scheme = scheme
        self.authority = authority
    }

    /// The base of `request`'s links, as it came from `peer`.
    init(request: Request, peer: IPAddress?, trustedProxies: TrustedProxies) {
        var scheme = "http"
        // HTTP/1's `Host` arrives as the authority; a `Host` field is only there when the request
        // was made in process (tests).
        let host = request.headers[Self.host] ?? request.head.authority
        var authority = host.flatMap { Self.isAuthority($0) ? $0 : nil } ?? "localhost"
        if let peer, trustedProxies.contains(peer) {
            // The right-most element: the one the trusted proxy wrote.
            let forwarded =
                ForwardingHeaders.forwardedElements(request.headers[values: Self.forwarded].joined(separator: ","))?
                .last ?? [:]
            let proto = forwarded["proto"] ?? Self.lastListValue(request.headers[values: Self.xForwardedProto])
            let host = forwarded["host"] ?? Self.lastListValue(request.headers[values: Self.xForwardedHost])
            if let proto = proto?.lowercased(), proto == "http" || proto == "https" { scheme = proto }
            if let host, Self.isAuthority(host) { authority = host }
        }
        self.init(scheme: scheme, authority: authority)
    }

    /// Whether `text` is a host with an optional port: a registered name or IPv4 address
    /// (letters, digits, `-`, `.`, `_`, `~`) or an IPv6 literal in brackets, then `:digits`.
    /// At most 255 bytes.
    static func isAuthority(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        var host = bytes[...]
        var port: ArraySlice<UInt8> = []
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = bytes[1..<close]
            guard literal.count >= 2,
                literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            let rest = bytes[(close + 1)...]
            guard rest.isEmpty || rest.first == UInt8(ascii: ":") else { return false }
            host = []
            port = rest.isEmpty ? [] : rest.dropFirst()
            if !rest.isEmpty, port.isEmpty { return false }
        } else {
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                host = bytes[..<colon]
                port = bytes[(colon + 1)...]
                if port.isEmpty { return false }
            }
            guard !host.isEmpty, host.allSatisfy(isNameByte) else { return false }
        }
        return port.count <= 5 && port.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// The right-most value of a comma-separated header (`X-Forwarded-Proto: https, http`).
    static func lastListValue(_ values: [String]) -> String? {
        guard let last = values.last, last.utf8.count <= TrustedProxies.maximumHeaderBytes else { return nil }
        let value = last.split(separator: ",", omittingEmptySubsequences: false).last.map { $0.trimmingSpaces }
        return value.flatMap { $0.isEmpty ? nil : String($0) }
    }

    /// The origin of an answer's absolute links: `--public-url`'s when it is set, else the
    /// request's (then the answer varies by `Host` and, behind trusted proxies, by the headers
    /// they forward: `varies` names them, for the answer's `Vary`).
    static func forLinks(
        _ request: Request, peer: IPAddress?, trustedProxies: TrustedProxies, publicURL: URL?
    ) -> (text: String, varies: [String]) {
        if let publicURL, let scheme = publicURL.scheme, let host = publicURL.host {
            let port = publicURL.port.map { ":\($0)" } ?? ""
            return ("\(scheme)://\(host)\(port)", [])
        }
        let origin = RequestOrigin(request: request, peer: peer, trustedProxies: trustedProxies)
        let varies =
            trustedProxies.networks.isEmpty
            ? ["Host"] : ["Host", "Forwarded", "X-Forwarded-Host", "X-Forwarded-Proto"]
        return (origin.text, varies)
    }

    static let host = HTTPField.Name("Host")!
    static let forwarded = HTTPField.Name("Forwarded")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
}
