import HTTPTypes
import NIOCore
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// Which address a request's client gets: the socket peer, or what trusted proxies forwarded.
@Suite("Client address through trusted proxies")
struct TrustedProxiesTests {
    let proxies = TrustedProxies([IPNetwork("127.0.0.1")!, IPNetwork("10.0.0.0/8")!, IPNetwork("fd00::/8")!])

    func client(peer: String, _ fields: [(String, String)]) -> String? {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return proxies.client(peer: IPAddress(peer), headers: headers)?.description
    }

    @Test("--trusted-proxy takes addresses and CIDR ranges of both families and refuses anything else")
    func networks() throws {
        for (text, shown) in [
            ("10.0.0.0/8", "10.0.0.0/8"), ("192.168.1.7", "192.168.1.7/32"), ("10.1.2.3/8", "10.0.0.0/8"),
            ("::1", "::1/128"), ("2001:DB8::/32", "2001:db8::/32"), ("0.0.0.0/0", "0.0.0.0/0"),
        ] {
            #expect(IPNetwork(text)?.description == shown, "\(text)")
        }
        for text in [
            "", "abc", "1.2.3", "10.0.0.0/33", "::1/129", "10.0.0.0/", "/8", "10.0.0.0/-1", "fe80::1%eth0",
            "10.0.0.0/8/8", "1.2.3.4 ", "[::1]", "10.0.0.0/08x", "256.1.1.1",
        ] {
            #expect(IPNetwork(text) == nil, "\(text)")
        }
        let network = try #require(IPNetwork("2001:db8:aa::/48"))
        #expect(network.contains(try #require(IPAddress("2001:db8:aa:ffff::1"))))
        #expect(!network.contains(try #require(IPAddress("2001:db8:ab::1"))))
        // An IPv4 range matches the same address whether written plain or IPv4-mapped.
        #expect(try #require(IPNetwork("10.0.0.0/8")).contains(try #require(IPAddress("::ffff:10.9.8.7"))))
        #expect(IPAddress("::ffff:10.9.8.7")?.description == "10.9.8.7")
        for text in ["0.0.0.0", "255.255.255.255", "10.200.3.99", "100.64.0.1", "9.99.199.250"] {
            #expect(IPAddress(text)?.description == text)
        }
        // IPv6 clients are counted by their /64.
        #expect(IPAddress("2001:db8:1:2:aaaa::9")?.throttleKey == "2001:db8:1:2::/64")
        #expect(IPAddress("198.51.100.7")?.throttleKey == "198.51.100.7")
    }

    @Test("a socket peer's address reads as the same address as its text, for both families; a Unix socket has none")
    func socketPeers() throws {
        for text in ["0.0.0.0", "127.0.0.1", "255.255.255.255", "10.200.3.99", "198.51.100.7"] {
            let peer = IPAddress(try SocketAddress(ipAddress: text, port: 443))
            #expect(peer == IPAddress(text), "\(text)")
            #expect(peer?.description == text)
        }
        for text in ["::1", "2001:db8:1:2:aaaa::9", "fd00::7", "::ffff:10.9.8.7", "ff02::1"] {
            let peer = IPAddress(try SocketAddress(ipAddress: text, port: 443))
            #expect(peer == IPAddress(text), "\(text)")
        }
        #expect(IPAddress(try SocketAddress(unixDomainSocketPath: "/tmp/burgermap.sock")) == nil)
    }

    @Test("forwarding headers count only when the socket peer is a trusted proxy")
    func untrustedPeer() {
        #expect(client(peer: "198.51.100.1", [("X-Forwarded-For", "203.0.113.9")]) == "198.51.100.1")
        #expect(client(peer: "198.51.100.1", [("Forwarded", "for=203.0.113.9")]) == "198.51.100.1")
        #expect(client(peer: "127.0.0.1", [("X-Forwarded-For", "203.0.113.9")]) == "203.0.113.9")
        #expect(client(peer: "127.0.0.1", []) == "127.0.0.1")
        // No trusted proxy configured: the peer, whatever it sends.
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.9"
        #expect(TrustedProxies().client(peer: IPAddress("127.0.0.1"), headers: headers)?.description == "127.0.0.1")
    }

    @Test("the client is the right-most hop that is not a trusted proxy; what the client wrote is ignored")
    func chains() {
        // The client wrote 192.0.2.1 itself; its proxy (10.0.0.2) appended the real address.
        #expect(client(peer: "10.0.0.1", [("X-Forwarded-For", "192.0.2.1, 198.51.100.9, 10.0.0.2")]) == "198.51.100.9")
        // Every hop trusted: the left-most one.
        #expect(client(peer: "10.0.0.1", [("X-Forwarded-For", "10.0.0.3,10.0.0.2")]) == "10.0.0.3")
        // Several header lines form one list, in order.
        #expect(
            client(peer: "10.0.0.1", [("X-Forwarded-For", "192.0.2.1"), ("X-Forwarded-For", "198.51.100.4")])
                == "198.51.100.4")
        // Ports, IPv6 in brackets, IPv6 peers.
        #expect(client(peer: "127.0.0.1", [("X-Forwarded-For", "198.51.100.7:5555")]) == "198.51.100.7")
        #expect(client(peer: "fd00::5", [("X-Forwarded-For", "[2001:db8::9]:443")]) == "2001:db8::9")
        #expect(client(peer: "::ffff:127.0.0.1", [("X-Forwarded-For", "2001:DB8::0:9")]) == "2001:db8::9")
        // RFC 7239: the `for` of each element, quoted IPv6 with a port, other parameters ignored.
        #expect(
            client(
                peer: "127.0.0.1",
                [("Forwarded", "for=192.0.2.43, for=\"[2001:db8:cafe::17]:4711\";proto=https;by=10.0.0.2")])
                == "2001:db8:cafe::17")
        #expect(
            client(peer: "127.0.0.1", [("Forwarded", "For=\"198.51.100.3\";host=\"a,b;c\", for=10.0.0.9")])
                == "198.51.100.3")
        // Both headers naming the same client; and disagreeing (one is forged): the peer.
        #expect(
            client(peer: "127.0.0.1", [("Forwarded", "for=198.51.100.3"), ("X-Forwarded-For", "198.51.100.3")])
                == "198.51.100.3")
        #expect(
            client(peer: "127.0.0.1", [("Forwarded", "for=198.51.100.3"), ("X-Forwarded-For", "192.0.2.66")])
                == "127.0.0.1")
    }

    @Test("malformed, unknown or oversized forwarding values leave the last trusted hop as the client")
    func malformed() {
        for value in ["garbage", "", "1.2.3.4.5", "unknown", "198.51.100.7:port", "[2001:db8::1", "[198.51.100.7]"] {
            #expect(client(peer: "127.0.0.1", [("X-Forwarded-For", value)]) == "127.0.0.1", "\(value)")
        }
        // A hop the walk needs is unknown: the trusted hop to its right.
        #expect(client(peer: "127.0.0.1", [("X-Forwarded-For", "198.51.100.9, junk, 10.0.0.2")]) == "10.0.0.2")
        // Garbage left of the client is never read.
        #expect(client(peer: "127.0.0.1", [("X-Forwarded-For", "junk, \u{7F}, 198.51.100.9")]) == "198.51.100.9")
        for value in ["for=unknown", "for=_hidden", "proto=http", "for=\"198.51.100.3", "for=\"a\\"] {
            #expect(client(peer: "127.0.0.1", [("Forwarded", value)]) == "127.0.0.1", "\(value)")
        }
        let long = Array(repeating: "198.51.100.1", count: 400).joined(separator: ",")
        #expect(client(peer: "127.0.0.1", [("X-Forwarded-For", long)]) == "127.0.0.1")
        // Only the right-most 16 hops are looked at: a forged address further left is never reached.
        let hops = ["192.0.2.1"] + (1...20).map { "10.0.0.\($0)" }
        #expect(client(peer: "127.0.0.1", [("X-Forwarded-For", hops.joined(separator: ", "))]) == "10.0.0.5")
    }
}
