import BurgerMapCore
import HTTPTypes

/// The reverse proxies whose forwarding headers the service believes (`--trusted-proxy`), and
/// the one rule that turns a request's socket peer and headers into its client address.
///
/// A proxy appends the address it received the request from, so only the right end of a
/// `Forwarded` / `X-Forwarded-For` chain is trustworthy: starting from the socket peer, the walk
/// goes right to left while the hop is a trusted proxy, and the first hop that is not one is the
/// client. Everything left of it was written by the client and is ignored.
public struct TrustedProxies: Sendable {
    public var networks: [IPNetwork]

    /// Hops looked at from the right before giving up: a chain through more trusted proxies than
    /// this is not a deployment, and the walk stays bounded whatever a client appends.
    public static let maximumHops = 16
    /// A forwarding header longer than this is ignored (the peer is the client): no proxy writes
    /// that much, and a `Forwarded` header must be read from its start to respect quoting.
    public static let maximumHeaderBytes = 4096

    public init(_ networks: [IPNetwork] = []) {
        self.networks = networks
    }

    /// Whether `address` is one of the trusted proxies.
    public func contains(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// The client of a request that came from `peer` with `headers`.
    ///
    /// The headers count only when the peer is trusted. When both `Forwarded` and
    /// `X-Forwarded-For` are present and name different clients, the peer is the client: a proxy
    /// writes one of them, and the other came from the client unchanged, so disagreement means
    /// one is forged. A header that is too long, or a hop that is not an address (`unknown`, an
    /// obfuscated name, garbage) where the walk needs one, leaves the last trusted hop as the
    /// client.
    public func client(peer: IPAddress?, headers: HTTPFields) -> IPAddress? {
        guard let peer, !networks.isEmpty, contains(peer) else { return peer }
        let forwarded = headers[values: Self.forwarded]
        let forwardedFor = headers[values: Self.xForwardedFor]
        var candidates: [IPAddress] = []
        if !forwarded.isEmpty {
            candidates.append(walk(peer: peer, hops: ForwardingHeaders.forwardedHops(forwarded.joined(separator: ","))))
        }
        if !forwardedFor.isEmpty {
            candidates.append(walk(peer: peer, hops: ForwardingHeaders.listHops(forwardedFor.joined(separator: ","))))
        }
        guard let first = candidates.first else { return peer }
        return candidates.allSatisfy { $0 == first } ? first : peer
    }

    /// Walks `hops` (right-most first, `nil` for a hop that is not an address).
    private func walk(peer: IPAddress, hops: [IPAddress?]?) -> IPAddress {
        guard let hops else { return peer }
        var client = peer
        for hop in hops {
            guard let hop else { return client }
            client = hop
            if !contains(hop) { return hop }
        }
        return client
    }

    static let forwarded = HTTPField.Name("Forwarded")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// Reading the two forwarding headers, right-most hop first and at most
/// `TrustedProxies.maximumHops` of them. Hand-written: no package in the mirror parses RFC 7239.
enum ForwardingHeaders {
    /// `X-Forwarded-For: client, proxy1, proxy2`; `nil` when the value is too long.
    static func listHops(_ value: String) -> [IPAddress?]? {
        guard value.utf8.count <= TrustedProxies.maximumHeaderBytes else { return nil }
        return value.split(separator: ",", omittingEmptySubsequences: false).reversed()
            .prefix(TrustedProxies.maximumHops).map { node($0) }
    }

    /// RFC 7239 `Forwarded: for=192.0.2.60;proto=http, for="[2001:db8::17]:4711"`: the `for`
    /// parameter of each element (an element without one is an unknown hop); `nil` when
    /// `forwardedElements` reads none.
    static func forwardedHops(_ value: String) -> [IPAddress?]? {
        forwardedElements(value)?.reversed().prefix(TrustedProxies.maximumHops).map { element in
            element["for"].flatMap { node($0[...]) }
        }
    }

    /// The parameters of each element of a `Forwarded` value, left to right: names lower-cased,
    /// values unquoted, the first of a repeated name. Commas and semicolons inside quoted strings
    /// do not split; `nil` when the value is too long or a quoted string never ends. What the
    /// client address (`for`) and the links' origin (`proto`, `host`; `RequestOrigin`) read.
    static func forwardedElements(_ value: String) -> [[String: String]]? {
        guard value.utf8.count <= TrustedProxies.maximumHeaderBytes else { return nil }
        var elements: [[Substring]] = [[]]
        var start = value.startIndex
        var quoted = false
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if quoted {
                if character == "\\" {
                    index = value.index(after: index)
                    if index == value.endIndex { return nil }
                } else if character == "\"" {
                    quoted = false
                }
            } else if character == "\"" {
                quoted = true
            } else if character == ";" || character == "," {
                elements[elements.count - 1].append(value[start..<index])
                if character == "," { elements.append([]) }
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        if quoted { return nil }
        elements[elements.count - 1].append(value[start...])
        return elements.map { pairs in
            var parameters: [String: String] = [:]
            for pair in pairs {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                var text = parts[1].trimmingSpaces
                if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
                let name = parts[0].trimmingSpaces.lowercased()
                if parameters[name] == nil { parameters[name] = String(text) }
            }
            return parameters
        }
    }

    /// One node: `192.0.2.7`, `192.0.2.7:443`, `2001:db8::1`, `[2001:db8::1]`, `[2001:db8::1]:443`;
    /// `nil` for anything else (`unknown`, `_hidden`, garbage).
    static func node(_ text: Substring) -> IPAddress? {
        let text = text.trimmingSpaces
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else {
                return nil
            }
            return IPAddress(text[text.index(after: text.startIndex)..<close]).flatMap { $0.isIPv4 ? nil : $0 }
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let colon = text.firstIndex(of: ":") {
            // IPv4 with a port.
            guard text[text.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            return IPAddress(text[..<colon]).flatMap { $0.isIPv4 ? $0 : nil }
        }
        return IPAddress(text)
    }
}

extension Substring {
    /// Without the spaces and tabs around it.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
