import Crypto

/// HMAC-SHA256 (RFC 2104) under one key, the key's two padded blocks hashed once: each code
/// starts from copies of the two keyed states and hashes only the message and the inner digest.
///
/// Written here rather than with swift-crypto's `HMAC<SHA256>`, whose `update(data:)` is generic
/// over `DataProtocol` and not inlinable: each call walked the data's `regions` through witness
/// tables and instantiated their metadata, 1.8 µs of the 3.3 µs a cursor's signature took
/// against 0.2 µs of hashing (`perf` of `scripts/bench-ceiling`'s nearby, 2026-11-28). This one
/// calls `SHA256`'s own non-generic `update(bufferPointer:)`. `KeyedSHA256MACTests` holds it to
/// RFC 4231's published vectors and to swift-crypto's `HMAC` on random keys and messages.
struct KeyedSHA256MAC: Sendable {
    /// SHA-256 after the key's block XOR `0x36`.
    private let inner: SHA256
    /// SHA-256 after the key's block XOR `0x5c`.
    private let outer: SHA256

    init(key: SymmetricKey) {
        // The key as one 64-byte block: hashed first when longer, padded with zeros.
        var block = [UInt8](repeating: 0, count: 64)
        key.withUnsafeBytes { key in
            if key.count > block.count {
                var hash = SHA256()
                hash.update(bufferPointer: key)
                hash.finalize().withUnsafeBytes { block.replaceSubrange(0..<$0.count, with: $0) }
            } else {
                block.replaceSubrange(0..<key.count, with: key)
            }
        }
        var inner = SHA256()
        var outer = SHA256()
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update(bufferPointer: $0) }
        block.map { $0 ^ 0x5c }.withUnsafeBytes { outer.update(bufferPointer: $0) }
        self.inner = inner
        self.outer = outer
    }

    /// HMAC-SHA256 of `message` under the key.
    func code(_ message: [UInt8]) -> SHA256.Digest {
        var inner = self.inner
        message.withUnsafeBytes { inner.update(bufferPointer: $0) }
        var outer = self.outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize()
    }
}
