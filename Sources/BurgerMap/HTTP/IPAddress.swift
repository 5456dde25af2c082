import BurgerMapCore
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as 16 bytes (IPv4 as an IPv4-mapped IPv6 address, `::ffff:a.b.c.d`,
/// so that an IPv4 network also matches a peer that a dual-stack socket reports mapped).
///
/// Parsed and printed with libc's `inet_pton`/`inet_ntop`: NIO parses addresses only into socket
/// addresses and has no network (CIDR) type, and no package in the mirror offers one.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address in network byte order, high half first.
    let high: UInt64
    let low: UInt64

    /// Parses dotted IPv4 (`192.0.2.7`) or IPv6 (`2001:db8::1`, no brackets, no zone); `nil` for
    /// anything else.
    public init?(_ text: some StringProtocol) {
        // The longest IPv6 text (with an embedded IPv4 tail) is 45 characters.
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        let string = String(text)
        if string.utf8.contains(UInt8(ascii: ":")) {
            guard inet_pton(AF_INET6, string, &bytes) == 1 else { return nil }
        } else {
            var four = [UInt8](repeating: 0, count: 4)
            guard inet_pton(AF_INET, string, &four) == 1 else { return nil }
            bytes[10] = 0xFF
            bytes[11] = 0xFF
            bytes.replaceSubrange(12..<16, with: four)
        }
        self.init(bytes: bytes)
    }

    /// The address of a peer as NIO reports it (`nil` for a Unix socket). Read from the socket
    /// address's bytes: going through NIO's `ipAddress` text and parsing it back took an
    /// `inet_ntop`, a string and an `inet_pton` on every request.
    init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            // `s_addr` holds the four bytes in network order.
            let value = UInt32(bigEndian: v4.address.sin_addr.s_addr)
            self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(value))
        case .v6(let v6):
            var address = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &address) { Array($0) }
            self.init(bytes: bytes)
        case .unixDomainSocket:
            return nil
        }
    }

    init(bytes: [UInt8]) {
        high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Whether this is an IPv4 address (stored mapped).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// The usual text: dotted for IPv4, RFC 5952 (lower case, `::` compressed) for IPv6.
    public var description: String {
        if isIPv4 {
            // Written directly: the access log prints the client of every request.
            var text: [UInt8] = []
            text.reserveCapacity(15)
            for shift in stride(from: 24, through: 0, by: -8) {
                let part = UInt8(truncatingIfNeeded: low >> UInt64(shift))
                if shift < 24 { text.append(0x2E) }
                if part >= 100 { text.append(0x30 + part / 100) }
                if part >= 10 { text.append(0x30 + part / 10 % 10) }
                text.append(0x30 + part % 10)
            }
            return String(decoding: text, as: UTF8.self)
        }
        var buffer = [CChar](repeating: 0, count: 64)
        let bytes = self.bytes
        let ok: Bool =
            isIPv4
            ? Array(bytes[12..<16]).withUnsafeBufferPointer {
                inet_ntop(AF_INET, $0.baseAddress, &buffer, 64) != nil
            }
            : bytes.withUnsafeBufferPointer { inet_ntop(AF_INET6, $0.baseAddress, &buffer, 64) != nil }
        guard ok else { return "invalid" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The key a client is counted under for throttling: the address for IPv4, its /64 network
    /// for IPv6, since one IPv6 subscriber usually holds a whole /64 and could otherwise take a
    /// fresh address for every attempt.
    public var throttleKey: String {
        isIPv4 ? description : IPAddress(high: high, low: 0).description + "/64"
    }
}

/// An address range in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`), or one address.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    public let address: IPAddress
    /// The prefix length over the 128-bit form (an IPv4 `/24` is `/120` here).
    let prefixLength: Int

    /// Parses `ADDRESS` or `ADDRESS/PREFIX`; `nil` when either part is invalid.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let maximum = address.isIPv4 ? 32 : 128
        var length = maximum
        if parts.count == 2 {
            guard parts[1].count <= 3, parts[1].allSatisfy(\.isASCII), let value = Int(parts[1]), value >= 0,
                value <= maximum
            else { return nil }
            length = value
        }
        prefixLength = address.isIPv4 ? 96 + length : length
        self.address = Self.masked(address, prefixLength)
    }

    private static func masked(_ address: IPAddress, _ length: Int) -> IPAddress {
        let highMask: UInt64 = length >= 64 ? .max : (length == 0 ? 0 : .max << (64 - length))
        let lowMask: UInt64 = length <= 64 ? 0 : (length >= 128 ? .max : .max << (128 - length))
        return IPAddress(high: address.high & highMask, low: address.low & lowMask)
    }

    /// Whether `other` lies in this network.
    public func contains(_ other: IPAddress) -> Bool {
        Self.masked(other, prefixLength) == address
    }

    public var description: String {
        "\(address)/\(address.isIPv4 ? prefixLength - 96 : prefixLength)"
    }
}
