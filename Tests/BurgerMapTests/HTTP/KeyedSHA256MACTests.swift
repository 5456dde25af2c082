import Crypto
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The cursors' HMAC-SHA256, held to RFC 4231's published vectors and to swift-crypto's `HMAC`.
@Suite("Keyed HMAC-SHA256")
struct KeyedSHA256MACTests {
    /// One of RFC 4231's test cases.
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let message: [UInt8]
        let expected: String
        var testDescription: String { name }
    }

    /// RFC 4231, test cases 1, 2, 3, 6 and 7: keys shorter than, and longer than, a block.
    static let vectors: [Vector] = [
        Vector(
            name: "4.2", key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8),
            expected: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(
            name: "4.3", key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8),
            expected: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(
            name: "4.4", key: [UInt8](repeating: 0xaa, count: 20), message: [UInt8](repeating: 0xdd, count: 50),
            expected: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(
            name: "4.7", key: [UInt8](repeating: 0xaa, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            expected: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(
            name: "4.8", key: [UInt8](repeating: 0xaa, count: 131),
            message: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            expected: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: vectors)
    func publishedVectors(_ vector: Vector) {
        let mac = KeyedSHA256MAC(key: SymmetricKey(data: vector.key))
        #expect(Self.hex(mac.code(vector.message)) == vector.expected)
        // The keyed states are copied, never consumed: a second code is the same.
        #expect(Self.hex(mac.code(vector.message)) == vector.expected)
    }

    /// Random keys of 0 to 150 bytes (around the 64-byte block) and messages of 0 to 300 bytes
    /// (seeded), against swift-crypto's `HMAC<SHA256>`.
    @Test func agreesWithSwiftCrypto() {
        var random = SeededGenerator(seed: 4231)
        for _ in 0..<300 {
            let key = (0..<Int.random(in: 0...150, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
            }
            let message = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            let reference = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
            #expect(
                Self.hex(KeyedSHA256MAC(key: SymmetricKey(data: key)).code(message)) == Self.hex(reference),
                "key of \(key.count) bytes, message of \(message.count)")
        }
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    private static func hex(_ digest: SHA256.Digest) -> String { hex(Array(digest)) }

    private static func hex(_ code: HashedAuthenticationCode<SHA256>) -> String { hex(Array(code)) }
}
