// AWS Signature Version 4, written here rather than taken from an SDK: no Swift S3/AWS SDK
// builds from this machine's package mirror (Soto is not available), and the algorithm is a
// short, published one (canonical request → string to sign → HMAC chain), about 150 lines.
// Tests/BurgerMapTests/ObjectStorage/ObjectStorageSigV4VectorTests.swift checks it against AWS's published
// test vectors: the aws-sig-v4-test-suite cases and the S3 documentation's signing examples.
import Crypto
import Foundation
import Synchronization

/// Signs requests with AWS Signature Version 4 (`AWS4-HMAC-SHA256`), in the `Authorization`
/// header or in the query string (a presigned URL).
///
/// The canonical URI is each path segment percent-decoded and encoded once (RFC 3986 unreserved
/// characters kept), as S3 wants; for other services the path is also normalized (`.`/`..`
/// segments and repeated slashes removed), as the generic test suite expects.
public struct SigV4Signer: Sendable {
    public let credentials: S3Credentials
    public let region: String
    public let service: String
    /// The last day's derived signing key.
    private let derivedKey = DerivedKey()

    public init(credentials: S3Credentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    static let algorithm = "AWS4-HMAC-SHA256"
    /// The hex SHA-256 of an empty body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Returns `headers` with `x-amz-date`, `x-amz-content-sha256` (for service "s3"),
    /// `x-amz-security-token` (with a session token), `Host` (derived from the URL when absent)
    /// and `Authorization` added; every header in the result is signed. Names are
    /// case-insensitive; values of a repeated name are joined with commas, in order.
    /// `payloadHash` is the hex SHA-256 of the body or `UNSIGNED-PAYLOAD`.
    public func sign(method: String, url: URL, headers: [(String, String)], payloadHash: String, date: Date)
        -> [(String, String)]
    {
        let replaced: Set<String> = ["authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"]
        var result = headers.filter { !replaced.contains($0.0.lowercased()) }
        if !result.contains(where: { $0.0.lowercased() == "host" }) {
            result.insert(("Host", Self.hostHeader(url)), at: 0)
        }
        result.append(("x-amz-date", Self.timestamp(date)))
        if service == "s3" { result.append(("x-amz-content-sha256", payloadHash)) }
        if let token = credentials.sessionToken { result.append(("x-amz-security-token", token)) }
        let canonical = canonicalRequest(method: method, url: url, headers: result, payloadHash: payloadHash)
        let signature = signature(stringToSign: stringToSign(canonicalRequest: canonical, date: date), date: date)
        let signed = Self.canonicalHeaders(result).map(\.name).joined(separator: ";")
        result.append(
            (
                "Authorization",
                "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(date)), SignedHeaders=\(signed), "
                    + "Signature=\(signature)"
            ))
        return result
    }

    /// A query-presigned URL: `X-Amz-Algorithm`, `-Credential`, `-Date`, `-Expires`,
    /// `-SignedHeaders` (`host`), `-Security-Token` with a session token, then `X-Amz-Signature`;
    /// the payload is `UNSIGNED-PAYLOAD`. `expires` is in seconds (S3 allows 1…604800).
    public func presign(method: String, url: URL, expires: Int, date: Date) -> URL {
        var query = Self.queryPairs(url)
        query += [
            ("X-Amz-Algorithm", Self.algorithm),
            ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(date))"),
            ("X-Amz-Date", Self.timestamp(date)),
            ("X-Amz-Expires", String(expires)),
            ("X-Amz-SignedHeaders", "host"),
        ]
        if let token = credentials.sessionToken { query.append(("X-Amz-Security-Token", token)) }
        let canonicalQuery = Self.canonicalQuery(query)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = canonicalQuery
        let unsignedURL = components.url!
        let canonical = canonicalRequest(
            method: method, url: unsignedURL, headers: [("host", Self.hostHeader(url))], payloadHash: "UNSIGNED-PAYLOAD"
        )
        let signature = signature(stringToSign: stringToSign(canonicalRequest: canonical, date: date), date: date)
        components.percentEncodedQuery = canonicalQuery + "&X-Amz-Signature=" + signature
        return components.url!
    }

    /// The canonical request: method, canonical URI, canonical query, canonical headers, signed
    /// header names and the payload hash, one a line.
    public func canonicalRequest(method: String, url: URL, headers: [(String, String)], payloadHash: String) -> String {
        let canonical = Self.canonicalHeaders(headers)
        return [
            method.uppercased(),
            canonicalURI(url),
            Self.canonicalQuery(Self.queryPairs(url)),
            canonical.map { "\($0.name):\($0.value)\n" }.joined(),
            canonical.map(\.name).joined(separator: ";"),
            payloadHash,
        ].joined(separator: "\n")
    }

    /// The string to sign: algorithm, timestamp, credential scope and the hex SHA-256 of the
    /// canonical request.
    public func stringToSign(canonicalRequest: String, date: Date) -> String {
        [Self.algorithm, Self.timestamp(date), scope(date), Self.hexSHA256(Data(canonicalRequest.utf8))]
            .joined(separator: "\n")
    }

    /// The hex HMAC of the string to sign with the key derived from the secret, day, region and
    /// service.
    public func signature(stringToSign: String, date: Date) -> String {
        Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(day: Self.day(date))))
    }

    /// The key derived from the secret for one day (four HMACs), kept for the day it was made.
    func signingKey(day: String) -> SymmetricKey {
        if let known = derivedKey.latest.withLock({ $0?.day == day ? $0?.key : nil }) { return known }
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        derivedKey.latest.withLock { $0 = (day, key) }
        return key
    }

    func scope(_ date: Date) -> String { "\(Self.day(date))/\(region)/\(service)/aws4_request" }

    func canonicalURI(_ url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).removingPercentEncoding ?? String($0)
        }
        if service != "s3" { segments = Self.normalized(segments) }
        let encoded = segments.map { S3URIEncoding.encode($0) }.joined(separator: "/")
        return encoded.hasPrefix("/") ? encoded : "/" + encoded
    }

    /// RFC 3986 dot-segment removal and repeated-slash collapsing (non-S3 services only: S3 keys
    /// may hold `//`, `.` and `..`).
    static func normalized(_ segments: [String]) -> [String] {
        var output: [String] = []
        for segment in segments.dropFirst() {
            switch segment {
            case ".", "": continue
            case "..": if !output.isEmpty { output.removeLast() }
            default: output.append(segment)
            }
        }
        let trailing = segments.count > 1 && ["", ".", ".."].contains(segments.last!) && !output.isEmpty
        return [""] + output + (trailing || output.isEmpty ? [""] : [])
    }

    /// The query as decoded (name, value) pairs; a name without `=` has an empty value.
    static func queryPairs(_ url: URL) -> [(String, String)] {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery,
            !query.isEmpty
        else { return [] }
        return query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).removingPercentEncoding ?? String(text) }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// Names and values encoded, sorted by encoded name then value, joined with `&`.
    static func canonicalQuery(_ pairs: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = pairs.map {
            (S3URIEncoding.encode($0.0, keepSlash: false), S3URIEncoding.encode($0.1, keepSlash: false))
        }
        // The encoded forms are ASCII, so String's ordering is the byte order SigV4 asks for.
        let sorted = encoded.sorted { (a: (name: String, value: String), b: (name: String, value: String)) -> Bool in
            a.name == b.name ? a.value < b.value : a.name < b.name
        }
        return sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// Lowercased names, sorted; values trimmed with inner runs of spaces collapsed; repeated
    /// names joined with commas in the order given.
    static func canonicalHeaders(_ headers: [(String, String)]) -> [(name: String, value: String)] {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let compact = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            merged[name.lowercased(), default: []].append(compact)
        }
        return merged.keys.sorted().map { ($0, merged[$0]!.joined(separator: ",")) }
    }

    /// `host[:port]`, the port only when it is not the scheme's default.
    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        guard let port = url.port else { return host }
        let standard = url.scheme?.lowercased() == "https" ? 443 : 80
        return port == standard ? host : "\(host):\(port)"
    }

    /// `YYYYMMDD'T'HHMMSS'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        let parts = utc(date)
        var out: [UInt8] = []
        out.reserveCapacity(16)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(parts.0, 4)
        digits(parts.1, 2)
        digits(parts.2, 2)
        out.append(UInt8(ascii: "T"))
        digits(parts.3, 2)
        digits(parts.4, 2)
        digits(parts.5, 2)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    static func day(_ date: Date) -> String { String(timestamp(date).prefix(8)) }

    /// Year, month, day, hour, minute and second in UTC. `gmtime_r`, not `Calendar`: a calendar
    /// and its time zone cost tens of microseconds to make, several times per signature, and
    /// made a presigned redirect cost 4 times a `/health` answer (`scripts/bench-photo-store`).
    static func utc(_ date: Date) -> (Int, Int, Int, Int, Int, Int) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return (
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour),
            Int(parts.tm_min), Int(parts.tm_sec)
        )
    }

    static func hexSHA256(_ data: some DataProtocol) -> String { hex(SHA256.hash(data: data)) }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The signing key of one day, shared by the copies of a signer.
final class DerivedKey: Sendable {
    let latest = Mutex<(day: String, key: SymmetricKey)?>(nil)
}

/// S3's URI encoding: every byte of the UTF-8 form percent-encoded (upper-case hex) except the
/// RFC 3986 unreserved characters `A-Z a-z 0-9 - . _ ~`, and `/` when encoding a key or path.
public enum S3URIEncoding {
    public static func encode(_ text: String, keepSlash: Bool = true) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
