import Crypto
import Foundation

/// Why `WebPushEncryption.encrypt` refused its input.
public enum WebPushEncryptionError: Error, Equatable, Sendable {
    /// The subscription's `p256dh` is not a 65-byte uncompressed P-256 point on the curve.
    case invalidSubscriberPublicKey
    /// The subscription's `auth` is not 16 bytes.
    case invalidAuthSecret
    /// A given salt is not 16 bytes.
    case invalidSalt
    /// The record size is too small to hold the tag and the padding delimiter.
    case invalidRecordSize
    /// The plaintext does not fit one record, or the body would pass 4096 bytes.
    case plaintextTooLarge
}

/// Web Push message encryption (RFC 8291) with the `aes128gcm` content coding (RFC 8188): the
/// whole HTTP body a push service takes, header and one encrypted record.
///
/// Written here: there is no maintained Swift Web Push package in the set of dependencies this
/// project may use, and the encryption is about a hundred lines over swift-crypto (ECDH,
/// HKDF-SHA-256, AES-128-GCM). It is checked byte for byte against RFC 8291's Appendix A vector
/// in the tests, which also decrypt from the subscriber's side.
public enum WebPushEncryption {
    /// The length of the uncompressed P-256 points the header and key derivation carry.
    static let publicKeyLength = 65
    /// RFC 8188's salt and RFC 8291's auth secret are both 16 bytes.
    static let saltLength = 16
    static let authSecretLength = 16
    /// The AES-GCM tag every record ends with.
    static let tagLength = 16
    /// The RFC 8188 header for a 65-byte key id: salt (16), rs (4), idlen (1), keyid (65).
    static let headerLength = 16 + 4 + 1 + 65

    /// The largest plaintext a push service must take: RFC 8030 only requires push services to
    /// accept 4096-byte bodies, which leaves 4096 - 86 (header) - 16 (tag) - 1 (delimiter).
    public static let maxPlaintextLength = 4096 - headerLength - tagLength - 1

    /// The body of a push message carrying `plaintext` to the subscription whose `p256dh` key
    /// is `subscriberPublicKey` and whose `auth` secret is `authSecret` (both decoded from
    /// base64url). `serverKey` is the one-time ECDH key and `salt` the 16 random bytes; both are
    /// fresh by default and are parameters only so tests can replay RFC 8291's example.
    ///
    /// The message is one record with the padding delimiter 0x02 and no further padding. It
    /// throws `plaintextTooLarge` when that record does not fit `recordSize` or when the body
    /// would pass 4096 bytes (`maxPlaintextLength`), the size every push service accepts.
    public static func encrypt(
        _ plaintext: [UInt8],
        subscriberPublicKey: [UInt8],
        authSecret: [UInt8],
        serverKey: P256.KeyAgreement.PrivateKey = .init(),
        salt: [UInt8]? = nil,
        recordSize: UInt32 = 4096
    ) throws -> [UInt8] {
        // RFC 8291 §3.1: ua_public is the uncompressed point; the x963 initializer checks that
        // it lies on the curve, so ECDH below never runs against an invalid point.
        guard subscriberPublicKey.count == publicKeyLength, subscriberPublicKey.first == 0x04,
            let userAgentKey = try? P256.KeyAgreement.PublicKey(x963Representation: subscriberPublicKey)
        else { throw WebPushEncryptionError.invalidSubscriberPublicKey }
        guard authSecret.count == authSecretLength else { throw WebPushEncryptionError.invalidAuthSecret }
        let salt = salt ?? randomBytes(saltLength)
        guard salt.count == saltLength else { throw WebPushEncryptionError.invalidSalt }
        // RFC 8188 §2: a record holds at least the tag and one byte of delimiter.
        guard recordSize >= UInt32(tagLength + 2) else { throw WebPushEncryptionError.invalidRecordSize }
        guard plaintext.count + 1 + tagLength <= Int(recordSize), plaintext.count <= maxPlaintextLength else {
            throw WebPushEncryptionError.plaintextTooLarge
        }

        let serverPublicKey = Array(serverKey.publicKey.x963Representation)
        let sharedSecret = try serverKey.sharedSecretFromKeyAgreement(with: userAgentKey)
        let ecdhSecret = sharedSecret.withUnsafeBytes { Array($0) }

        // RFC 8291 §3.4: the auth secret salts the ECDH secret, bound to both public keys.
        let keyInfo = Array("WebPush: info".utf8) + [0] + subscriberPublicKey + serverPublicKey
        let inputKeyMaterial = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ecdhSecret), salt: authSecret, info: keyInfo,
            outputByteCount: 32)
        // RFC 8188 §2.2 and §2.3: the content-encryption key and the nonce; the nonce is used
        // as is, since the sequence number of the only record is 0.
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKeyMaterial, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0],
            outputByteCount: 16)
        let nonceBytes = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKeyMaterial, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0],
            outputByteCount: 12
        ).withUnsafeBytes { Array($0) }

        // 0x02 marks the last (here the only) record; no padding bytes follow it.
        let sealed = try AES.GCM.seal(
            plaintext + [0x02], using: contentKey, nonce: try AES.GCM.Nonce(data: nonceBytes))

        var body: [UInt8] = []
        body.reserveCapacity(headerLength + plaintext.count + 1 + tagLength)
        body += salt
        body += withUnsafeBytes(of: recordSize.bigEndian) { Array($0) }
        body.append(UInt8(publicKeyLength))
        body += serverPublicKey
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    /// `count` bytes from the system's cryptographically secure generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
