import Foundation

/// How an object's URL names its bucket.
public enum S3Addressing: String, Sendable {
    /// `endpoint/bucket/key`: what SeaweedFS, MinIO and most self-hosted stores expect.
    case path
    /// `bucket.host/key`: AWS's default (and the only form for buckets created after 2020 on
    /// some AWS regions' new endpoints).
    case virtualHost = "virtual-host"
}

/// A bucket and key prefix written `s3://BUCKET[/PREFIX]`, as an option takes it. The prefix has
/// no leading or trailing slash ("" when none).
public struct S3Location: Sendable, Equatable {
    public var bucket: String
    public var prefix: String

    public init(bucket: String, prefix: String) {
        self.bucket = bucket
        self.prefix = prefix
    }

    /// Fails on another scheme or a bucket name S3 would refuse: 3–63 characters of lowercase
    /// letters, digits, dots and hyphens, starting and ending with a letter or digit, no `..`,
    /// not an IPv4 address.
    public init?(_ text: String) {
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        guard Self.isValidBucketName(bucket) else { return nil }
        let prefix = rest.dropFirst(bucket.count).split(separator: "/", omittingEmptySubsequences: true)
            .joined(separator: "/")
        self.bucket = bucket
        self.prefix = prefix
    }

    public static func isValidBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let alphanumeric = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard bytes.allSatisfy({ alphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
            alphanumeric(bytes.first!), alphanumeric(bytes.last!), !name.contains("..")
        else { return false }
        let octets = name.split(separator: ".")
        return !(octets.count == 4 && octets.allSatisfy { UInt8($0) != nil })
    }
}

/// Where and as whom the client talks to the store.
public struct S3Configuration: Sendable {
    /// The service's base URL, e.g. `http://127.0.0.1:8333` or
    /// `https://s3.eu-west-1.amazonaws.com`.
    public var endpoint: URL
    /// The signing region, e.g. `us-east-1` (SeaweedFS and MinIO accept any).
    public var region: String
    public var bucket: String
    public var addressing: S3Addressing
    public var credentials: S3Credentials

    public init(endpoint: URL, region: String, bucket: String, addressing: S3Addressing, credentials: S3Credentials) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.addressing = addressing
        self.credentials = credentials
    }
}
