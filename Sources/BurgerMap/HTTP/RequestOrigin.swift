import Foundation
import HTTPTypes
import Hummingbird

/// The scheme and authority a client reached the service by (`https://maps.example`), for the
/// absolute links that map clients and GIS tools need (TileJSON's tile template, OGC API
/// links). From the request's `Host`; behind a trusted proxy (`--trusted-proxy`) from its
/// `Forwarded` (`proto=`, `host=`) or `X-Forwarded-Proto` / `X-Forwarded-Host`, which an
/// untrusted peer cannot set. A host with anything but the characters of a name, an address
/// and a port is not echoed into a link (`localhost` instead).
struct RequestOrigin: Sendable, Equatable, CustomStringConvertible {
    var scheme: String
    var authority: String

    var description: String { "\(scheme)://\(authority)" }

    init(scheme: String, authority: String) {
        self.scheme = scheme
        self.authority = authority
    }

    init(_ request: Request, context: AppRequestContext, trustedProxies: TrustedProxies) {
        var scheme = "http"
        // HTTP/1's Host becomes the request's authority; a request made in process keeps it
        // as a field.
        var authority = request.headers[Self.host] ?? request.head.authority ?? "localhost"
        if let remote = context.remoteAddress, let peer = IPAddress(remote), trustedProxies.contains(peer) {
            let forwarded = Self.forwardedPairs(request.headers[values: TrustedProxies.forwarded].first)
            if let proto = forwarded["proto"] ?? Self.first(request.headers, "X-Forwarded-Proto") { scheme = proto }
            if let host = forwarded["host"] ?? Self.first(request.headers, "X-Forwarded-Host") { authority = host }
        }
        let lowered = scheme.lowercased()
        self.scheme = lowered == "https" ? "https" : "http"
        self.authority = Self.isValidAuthority(authority) ? authority : "localhost"
    }

    private static let host = HTTPField.Name("Host")!

    /// `name=value` pairs of a `Forwarded` header's first element (the client's side), unquoted.
    private static func forwardedPairs(_ header: String?) -> [String: String] {
        guard let header, let element = header.split(separator: ",").first else { return [:] }
        var pairs: [String: String] = [:]
        for pair in element.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            var value = parts[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            pairs[parts[0].trimmingCharacters(in: .whitespaces).lowercased()] = value
        }
        return pairs
    }

    private static func first(_ headers: HTTPFields, _ name: String) -> String? {
        guard let name = HTTPField.Name(name), let value = headers[name] else { return nil }
        return value.split(separator: ",").first.map { String($0).trimmingCharacters(in: .whitespaces) }
    }

    /// A host name, IPv4 or bracketed IPv6 address, with an optional port: nothing that could
    /// end a URL's authority or a header.
    static func isValidAuthority(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                    UInt8(ascii: "["), UInt8(ascii: "]"):
                    return true
                default: return false
                }
            }
    }
}
