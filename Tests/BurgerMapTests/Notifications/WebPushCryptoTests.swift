import Crypto
import Foundation
import Testing

@testable import BurgerMap

/// RFC 8291 Appendix A, the values as printed there (base64url, line breaks removed); they were
/// also checked by recomputing the body with Python's `cryptography` and decrypting it with `http_ece`.
private enum RFC8291Example {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let serverPrivateKey = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let serverPublicKey =
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let userAgentPrivateKey = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let userAgentPublicKey =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let body =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PB"
        + "ru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
}

private func decoded(_ text: String) throws -> [UInt8] {
    try #require(Base64URL.decode(text))
}

/// HKDF-SHA-256 with one output block, written from HMAC so the check does not reuse the
/// HKDF call the encryption makes.
private func hkdf(salt: [UInt8], ikm: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
    let prk = Array(HMAC<SHA256>.authenticationCode(for: ikm, using: SymmetricKey(data: salt)))
    return Array(HMAC<SHA256>.authenticationCode(for: info + [1], using: SymmetricKey(data: prk)).prefix(count))
}

/// The subscriber's side of RFC 8291, as a browser does it: read the RFC 8188 header, agree on
/// the secret with the user agent's private key, derive the same key and nonce, open the record.
func decryptPushMessage(
    _ body: [UInt8], userAgentKey: P256.KeyAgreement.PrivateKey, authSecret: [UInt8]
) throws -> [UInt8] {
    let salt = Array(body[0..<16])
    let recordSize = body[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let keyIDLength = Int(body[20])
    let serverPublic = Array(body[21..<(21 + keyIDLength)])
    let record = Array(body[(21 + keyIDLength)...])
    #expect(record.count <= Int(recordSize))
    let serverKey = try P256.KeyAgreement.PublicKey(x963Representation: serverPublic)
    let secret = try userAgentKey.sharedSecretFromKeyAgreement(with: serverKey).withUnsafeBytes { Array($0) }
    let userAgentPublic = Array(userAgentKey.publicKey.x963Representation)
    let ikm = hkdf(
        salt: authSecret, ikm: secret, info: Array("WebPush: info\0".utf8) + userAgentPublic + serverPublic, count: 32)
    let key = hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: aes128gcm\0".utf8), count: 16)
    let nonce = hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: nonce\0".utf8), count: 12)
    let box = try AES.GCM.SealedBox(
        nonce: AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(16), tag: record.suffix(16))
    var padded = Array(try AES.GCM.open(box, using: SymmetricKey(data: key)))
    while padded.last == 0 { padded.removeLast() }
    #expect(padded.last == 0x02)
    return Array(padded.dropLast())
}

/// RFC 8291 / RFC 8188 encryption: the RFC's own example, a subscriber-side round trip, the limits.
@Suite struct WebPushEncryptionTests {
    @Test func reproducesRFC8291AppendixA() throws {
        let serverKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: decoded(RFC8291Example.serverPrivateKey))
        #expect(Base64URL.encode(serverKey.publicKey.x963Representation) == RFC8291Example.serverPublicKey)
        let body = try WebPushEncryption.encrypt(
            Array(RFC8291Example.plaintext.utf8), subscriberPublicKey: decoded(RFC8291Example.userAgentPublicKey),
            authSecret: decoded(RFC8291Example.authSecret), serverKey: serverKey,
            salt: decoded(RFC8291Example.salt), recordSize: 4096)
        #expect(body == (try decoded(RFC8291Example.body)))
        #expect(body.count == 144)

        let userAgentKey = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: decoded(RFC8291Example.userAgentPrivateKey))
        let opened = try decryptPushMessage(
            body, userAgentKey: userAgentKey, authSecret: decoded(RFC8291Example.authSecret))
        #expect(String(decoding: opened, as: UTF8.self) == RFC8291Example.plaintext)
    }

    @Test func roundTripsThroughTheSubscriber() throws {
        let userAgentKey = P256.KeyAgreement.PrivateKey()
        let authSecret = WebPushEncryption.randomBytes(16)
        let payload = (0..<3000).map { UInt8($0 % 251) }
        let body = try WebPushEncryption.encrypt(
            payload, subscriberPublicKey: Array(userAgentKey.publicKey.x963Representation), authSecret: authSecret)
        #expect(body.count == 86 + 3000 + 1 + 16)
        #expect(Array(body[16..<21]) == [0, 0, 0x10, 0, 65])
        #expect(body[21] == 0x04)
        #expect(try decryptPushMessage(body, userAgentKey: userAgentKey, authSecret: authSecret) == payload)

        // Fresh salt and server key on every call.
        let again = try WebPushEncryption.encrypt(
            payload, subscriberPublicKey: Array(userAgentKey.publicKey.x963Representation), authSecret: authSecret)
        #expect(again[0..<16] != body[0..<16])
        #expect(again[21..<86] != body[21..<86])
    }

    @Test func refusesWhatDoesNotFitOneRecord() throws {
        let userAgent = Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        let auth = [UInt8](repeating: 7, count: 16)
        #expect(throws: WebPushEncryptionError.plaintextTooLarge) {
            try WebPushEncryption.encrypt(
                [UInt8](repeating: 1, count: 5000), subscriberPublicKey: userAgent, authSecret: auth)
        }
        #expect(WebPushEncryption.maxPlaintextLength == 3993)
        let largest = try WebPushEncryption.encrypt(
            [UInt8](repeating: 1, count: 3993), subscriberPublicKey: userAgent, authSecret: auth)
        #expect(largest.count == 4096)
        #expect(throws: WebPushEncryptionError.plaintextTooLarge) {
            try WebPushEncryption.encrypt(
                [UInt8](repeating: 1, count: 3994), subscriberPublicKey: userAgent, authSecret: auth)
        }
        // A smaller record size lowers the limit to rs - 16 (tag) - 1 (delimiter).
        _ = try WebPushEncryption.encrypt(
            [UInt8](repeating: 1, count: 1007), subscriberPublicKey: userAgent, authSecret: auth, recordSize: 1024)
        #expect(throws: WebPushEncryptionError.plaintextTooLarge) {
            try WebPushEncryption.encrypt(
                [UInt8](repeating: 1, count: 1008), subscriberPublicKey: userAgent, authSecret: auth, recordSize: 1024)
        }
    }

    @Test func refusesBadKeysSecretsAndSalts() throws {
        let key = P256.KeyAgreement.PrivateKey().publicKey
        let userAgent = Array(key.x963Representation)
        let auth = [UInt8](repeating: 7, count: 16)
        let bad: [(key: [UInt8], auth: [UInt8], salt: [UInt8]?, rs: UInt32, error: WebPushEncryptionError)] = [
            (Array(userAgent.prefix(64)), auth, nil, 4096, .invalidSubscriberPublicKey),
            (Array(key.compressedRepresentation), auth, nil, 4096, .invalidSubscriberPublicKey),
            ([4] + [UInt8](repeating: 0, count: 64), auth, nil, 4096, .invalidSubscriberPublicKey),  // off the curve
            ([5] + userAgent.dropFirst(), auth, nil, 4096, .invalidSubscriberPublicKey),
            (userAgent, Array(auth.prefix(15)), nil, 4096, .invalidAuthSecret),
            (userAgent, auth, [UInt8](repeating: 0, count: 8), 4096, .invalidSalt),
            (userAgent, auth, nil, 17, .invalidRecordSize),
        ]
        for case let (key, auth, salt, rs, error) in bad {
            #expect(throws: error) {
                try WebPushEncryption.encrypt(
                    [1, 2, 3], subscriberPublicKey: key, authSecret: auth, salt: salt, recordSize: rs)
            }
        }
    }
}

/// RFC 4648 §5 vectors, padded and unpadded, and what decoding refuses.
@Suite struct Base64URLTests {
    @Test func encodesWithoutPadding() {
        #expect(Base64URL.encode([UInt8]()) == "")
        #expect(Base64URL.encode("f".utf8) == "Zg")
        #expect(Base64URL.encode("fo".utf8) == "Zm8")
        #expect(Base64URL.encode("foo".utf8) == "Zm9v")
        #expect(Base64URL.encode("foob".utf8) == "Zm9vYg")
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test func decodesWithOrWithoutPaddingAndNothingElse() {
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("Zg") == Array("f".utf8))
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(Base64URL.decode("Zm8=") == Array("fo".utf8))
        #expect(Base64URL.decode("Zm9vYg") == Array("foob".utf8))
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        for bad in ["Z", "Zg=", "Zg===", "Z=g=", "Zm9v+A", "Zm9v/A", "Zm 9v", "Zm9v\n", "=Zg="] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }
}

/// RFC 8292: the `Authorization` header, the key formats, and where the key is kept.
@Suite struct VAPIDKeysTests {
    /// The parts of `vapid t=<JWT>, k=<key>`: header and claims JSON, signing input, signature, key.
    private func parse(_ authorization: String) throws -> (
        header: String, claims: String, signingInput: String, signature: [UInt8], key: String
    ) {
        #expect(authorization.hasPrefix("vapid t="))
        let fields = authorization.dropFirst("vapid t=".count)
            .split(separator: ", k=", omittingEmptySubsequences: false)
        try #require(fields.count == 2)
        let segments = fields[0].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(segments.count == 3)
        return (
            String(decoding: try decoded(segments[0]), as: UTF8.self),
            String(decoding: try decoded(segments[1]), as: UTF8.self),
            segments[0] + "." + segments[1], try decoded(segments[2]), String(fields[1])
        )
    }

    @Test func signsAnES256TokenForTheEndpointsOrigin() throws {
        let keys = VAPIDKeys(privateKey: .init())
        let now = Date(timeIntervalSince1970: 1_700_000_000.75)
        let header = try keys.authorization(
            endpoint: try #require(URL(string: "https://fcm.googleapis.com/fcm/send/abc")),
            subject: "mailto:ops@burgermap.example", now: now)
        let parts = try parse(header)
        #expect(parts.header == #"{"typ":"JWT","alg":"ES256"}"#)
        let expectedClaims =
            #"{"aud":"https://fcm.googleapis.com","exp":1700043200,"#
            + #""sub":"mailto:ops@burgermap.example"}"#
        #expect(parts.claims == expectedClaims)
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(parts.claims.utf8)) as? [String: Any])
        let exp = try #require(claims["exp"] as? Int)
        #expect(TimeInterval(exp) <= now.timeIntervalSince1970 + 24 * 3600)
        #expect(parts.key == keys.publicKeyBase64URL)

        let publicKey = try P256.Signing.PublicKey(x963Representation: decoded(parts.key))
        #expect(parts.signature.count == 64)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: parts.signature)
        #expect(publicKey.isValidSignature(signature, for: Data(parts.signingInput.utf8)))
        #expect(!publicKey.isValidSignature(signature, for: Data((parts.signingInput + "x").utf8)))
    }

    @Test func audienceKeepsOnlyANonDefaultPort() throws {
        let keys = VAPIDKeys(privateKey: .init())
        let header = try keys.authorization(
            endpoint: try #require(URL(string: "http://127.0.0.1:8123/push/1")), subject: "https://burgermap.example",
            now: Date(timeIntervalSince1970: 0), lifetime: 60)
        #expect(
            try parse(header).claims == #"{"aud":"http://127.0.0.1:8123","exp":60,"sub":"https://burgermap.example"}"#)
        let audiences = [
            "https://web.push.apple.com:443/x": "https://web.push.apple.com",
            "http://push.test:80/x": "http://push.test",
            "https://push.test:8443/x?y=1": "https://push.test:8443",
            "https://[::1]:8443/x": "https://[::1]:8443",
        ]
        for (endpoint, audience) in audiences {
            #expect(try VAPIDKeys.audience(of: #require(URL(string: endpoint))) == audience)
        }
    }

    @Test func refusesBadEndpointsSubjectsAndLifetimes() throws {
        let keys = VAPIDKeys(privateKey: .init())
        let endpoint = try #require(URL(string: "https://fcm.googleapis.com/fcm/send/abc"))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(throws: VAPIDError.invalidEndpoint) {
            try keys.authorization(endpoint: #require(URL(string: "ftp://x.example/")), subject: "mailto:a@b", now: now)
        }
        #expect(throws: VAPIDError.invalidSubject) {
            try keys.authorization(endpoint: endpoint, subject: "ops@burgermap.example", now: now)
        }
        #expect(throws: VAPIDError.invalidLifetime) {
            try keys.authorization(endpoint: endpoint, subject: "mailto:a@b", now: now, lifetime: 24 * 3600 + 1)
        }
        #expect(throws: VAPIDError.invalidLifetime) {
            try keys.authorization(endpoint: endpoint, subject: "mailto:a@b", now: now, lifetime: 0)
        }
    }

    @Test func privateKeyTextRoundTrips() throws {
        // The RFC 8291 example's scalar gives the same point as a signing key as it does for ECDH.
        let keys = try VAPIDKeys(privateKeyBase64URL: RFC8291Example.serverPrivateKey + "\n")
        #expect(keys.privateKeyBase64URL == RFC8291Example.serverPrivateKey)
        #expect(keys.publicKeyBase64URL == RFC8291Example.serverPublicKey)
        let fresh = VAPIDKeys(privateKey: .init())
        let reloaded = try VAPIDKeys(privateKeyBase64URL: fresh.privateKeyBase64URL)
        #expect(reloaded.publicKeyBase64URL == fresh.publicKeyBase64URL)
        for bad in ["", "abc", Base64URL.encode([UInt8](repeating: 0, count: 32)), RFC8291Example.serverPublicKey] {
            #expect(throws: VAPIDError.invalidPrivateKey) { try VAPIDKeys(privateKeyBase64URL: bad) }
        }
    }

    @Test func loadsFromTheEnvironmentOrAFileItWrites() throws {
        let manager = FileManager.default
        let root = manager.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString)")
        defer { try? manager.removeItem(at: root) }
        let folder = root.appendingPathComponent("data")

        let written = try VAPIDKeys.load(environment: [:], folder: folder)
        let file = folder.appendingPathComponent("vapid-private-key")
        #expect(try manager.contentsOfDirectory(atPath: folder.path) == ["vapid-private-key"])
        let mode = try #require(manager.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8) == written.privateKeyBase64URL + "\n")
        let loaded = try VAPIDKeys.load(environment: ["OTHER": "x"], folder: folder)
        #expect(loaded.privateKeyBase64URL == written.privateKeyBase64URL)

        let fromEnvironment = try VAPIDKeys.load(
            environment: ["BURGERMAP_VAPID_PRIVATE_KEY": RFC8291Example.serverPrivateKey], folder: folder)
        #expect(fromEnvironment.publicKeyBase64URL == RFC8291Example.serverPublicKey)
        #expect(
            try VAPIDKeys.load(environment: ["BURGERMAP_VAPID_PRIVATE_KEY": ""], folder: folder)
                .privateKeyBase64URL == written.privateKeyBase64URL)
        #expect(throws: VAPIDError.invalidPrivateKey) {
            try VAPIDKeys.load(environment: ["BURGERMAP_VAPID_PRIVATE_KEY": "nope"], folder: folder)
        }

        // A damaged file is an error, never silently replaced by a new key.
        try Data("damaged".utf8).write(to: file)
        #expect(throws: VAPIDError.invalidPrivateKey) { try VAPIDKeys.load(environment: [:], folder: folder) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "damaged")

        // Without a folder every load is a new key.
        let first = try VAPIDKeys.load(environment: [:], folder: nil)
        let second = try VAPIDKeys.load(environment: [:], folder: nil)
        #expect(first.privateKeyBase64URL != second.privateKeyBase64URL)
    }
}

/// The SSRF guard: which subscription endpoints the server may POST to.
@Suite struct PushEndpointPolicyTests {
    private func expectAccepted(_ policy: PushEndpointPolicy, _ endpoint: String) {
        #expect(policy.check(endpoint) == .success(URL(string: endpoint)!), "\(endpoint)")
    }

    private func expectRefused(_ policy: PushEndpointPolicy, _ endpoint: String, _ rejection: PushEndpointRejection) {
        #expect(policy.check(endpoint) == .failure(rejection), "\(endpoint)")
    }

    @Test func acceptsTheKnownPushServicesOverHTTPS() {
        let policy = PushEndpointPolicy(extraHosts: [], allowHTTP: false)
        for endpoint in [
            "https://fcm.googleapis.com/fcm/send/abc:APA91b",
            "https://FCM.GoogleAPIs.com/fcm/send/abc",
            "https://fcm.googleapis.com:443/fcm/send/abc",
            "https://android.googleapis.com/gcm/send/abc",
            "https://updates.push.services.mozilla.com/wpush/v2/gAAAAAB",
            "https://push.services.mozilla.com/wpush/v1/gAAAAAB",
            "https://web.push.apple.com/QGuQyavXutnMH",
            "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD",
        ] {
            expectAccepted(policy, endpoint)
        }
    }

    @Test func refusesLookAlikesOtherPortsAndSchemes() {
        let policy = PushEndpointPolicy(extraHosts: [], allowHTTP: false)
        expectRefused(policy, "https://fcm.googleapis.com.evil.com/x", .hostNotAllowed("fcm.googleapis.com.evil.com"))
        expectRefused(policy, "https://evil.com/fcm.googleapis.com", .hostNotAllowed("evil.com"))
        expectRefused(policy, "https://evilfcm.googleapis.com/x", .hostNotAllowed("evilfcm.googleapis.com"))
        expectRefused(policy, "https://googleapis.com/x", .hostNotAllowed("googleapis.com"))
        expectRefused(policy, "https://xnotify.windows.com/w", .hostNotAllowed("xnotify.windows.com"))
        expectRefused(policy, "https://fcm.googleapis.com./x", .hostNotAllowed("fcm.googleapis.com."))
        expectRefused(policy, "https://fcm.googleapis.com:8443/x", .hostNotAllowed("fcm.googleapis.com"))
        expectRefused(policy, "http://fcm.googleapis.com/x", .notHTTPS)
        expectRefused(policy, "ftp://fcm.googleapis.com/x", .notHTTPS)
        expectRefused(policy, "https://user:pw@fcm.googleapis.com/x", .credentialsInURL)
        expectRefused(policy, "https://fcm.googleapis.com@evil.com/x", .credentialsInURL)
        expectRefused(policy, "https://fcm.googleapis.com/x#fragment", .notAURL)
        for notAURL in ["", "fcm.googleapis.com/x", "/fcm/send/abc", "https:///x", "https://fcm.googleapis.com/a b"] {
            expectRefused(policy, notAURL, .notAURL)
        }
    }

    @Test func refusesEndpointsOver1024Bytes() {
        let policy = PushEndpointPolicy(extraHosts: [], allowHTTP: false)
        let prefix = "https://fcm.googleapis.com/fcm/send/"
        expectAccepted(policy, prefix + String(repeating: "a", count: 1024 - prefix.utf8.count))
        expectRefused(policy, prefix + String(repeating: "a", count: 1025 - prefix.utf8.count), .tooLong)
    }

    @Test func refusesIPLiteralsAndLocalhostUnlessListed() {
        let policy = PushEndpointPolicy(extraHosts: [], allowHTTP: false)
        expectRefused(policy, "http://127.0.0.1:9/", .notHTTPS)
        expectRefused(policy, "https://127.0.0.1/", .hostNotAllowed("127.0.0.1"))
        expectRefused(policy, "https://169.254.169.254/latest/meta-data", .hostNotAllowed("169.254.169.254"))
        expectRefused(policy, "https://localhost/", .hostNotAllowed("localhost"))
        expectRefused(policy, "https://[::1]/", .hostNotAllowed("::1"))
        #expect(PushEndpointPolicy.isIPLiteralOrLocalhost("2130706433"))
        #expect(PushEndpointPolicy.isIPLiteralOrLocalhost("127.1"))
        #expect(PushEndpointPolicy.isIPLiteralOrLocalhost("a.localhost"))
        #expect(!PushEndpointPolicy.isIPLiteralOrLocalhost("fcm.googleapis.com"))
    }

    @Test func listedHostsMatchExactlyWithTheirPort() {
        let policy = PushEndpointPolicy(
            extraHosts: ["127.0.0.1:9", "Push.Test", "[::1]:8443", "bad:port", ""], allowHTTP: true)
        #expect(policy.extraHosts.count == 3)
        expectAccepted(policy, "http://127.0.0.1:9/")
        expectAccepted(policy, "https://127.0.0.1:9/push/1")
        expectRefused(policy, "http://127.0.0.1:10/", .hostNotAllowed("127.0.0.1"))
        expectRefused(policy, "http://127.0.0.1/", .hostNotAllowed("127.0.0.1"))
        expectAccepted(policy, "https://push.TEST/x")
        expectAccepted(policy, "http://push.test/x")
        expectAccepted(policy, "https://push.test:443/x")
        expectRefused(policy, "https://push.test:8443/x", .hostNotAllowed("push.test"))
        expectRefused(policy, "https://sub.push.test/x", .hostNotAllowed("sub.push.test"))
        expectAccepted(policy, "https://[::1]:8443/x")
        // Plain http stays for listed hosts only.
        expectRefused(policy, "http://fcm.googleapis.com/x", .hostNotAllowed("fcm.googleapis.com"))
        expectAccepted(policy, "https://fcm.googleapis.com/x")

        let httpsOnly = PushEndpointPolicy(extraHosts: ["127.0.0.1:9"], allowHTTP: false)
        expectRefused(httpsOnly, "http://127.0.0.1:9/", .notHTTPS)
        expectAccepted(httpsOnly, "https://127.0.0.1:9/")
    }
}
