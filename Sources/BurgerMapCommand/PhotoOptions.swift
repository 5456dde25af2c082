import ArgumentParser
import BurgerMap
import BurgerMapObjectStorage
import Foundation

/// Where photos live and how their URLs are answered: `burgermap serve`'s photo options, and
/// the bucket options `photos migrate` shares.
struct PhotoOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "folder (DATA_DIR/photos or --photo-dir), or s3://BUCKET[/PREFIX] for an S3-compatible bucket (keys from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).",
            valueName: "store"))
    var photoStore = "folder"
    @OptionGroup var bucket: BucketOptions
    @Option(
        help: ArgumentHelp(
            "How photo URLs are answered with a bucket: proxy (the service streams them), redirect (302 to a presigned URL) or public:https://CDN/ (Photo objects hold URLs there).",
            valueName: "mode"))
    var photoUrls = "proxy"
    @Option(help: "Seconds a presigned photo URL stays valid (redirect mode; 1…604800).") var photoUrlTtl = 3600
    @Option(
        help:
            "Seconds an object with no photo row waits before the sweep removes it (10…604800; uploads must finish within half of it)."
    )
    var photoSweepGrace = 3600
    @Option(help: "Memory for thumbnails streamed from the bucket in proxy mode, in MiB (0 keeps none).")
    var photoCacheMb = PhotoStoreConfiguration().cacheMegabytes

    func validate() throws {
        guard photoStore == "folder" || S3Location(photoStore) != nil else {
            throw ValidationError("--photo-store must be folder or s3://BUCKET[/PREFIX] (an S3 bucket name)")
        }
        guard PhotoLinks(argument: photoUrls, ttl: photoUrlTtl) != nil else {
            throw ValidationError(
                "--photo-urls must be proxy, redirect (with --photo-url-ttl 1…604800) or public:http(s)://HOST/PATH/")
        }
        guard (10...604_800).contains(photoSweepGrace) else {
            throw ValidationError("--photo-sweep-grace must be 10…604800 seconds")
        }
        guard (0...65_536).contains(photoCacheMb) else { throw ValidationError("--photo-cache-mb must be 0…65536") }
    }

    /// The options applied to `configuration`.
    func apply(to configuration: inout PhotoStoreConfiguration) throws {
        guard let location = S3Location(photoStore) else { return }
        configuration.bucket = try bucket.configuration(bucket: location.bucket)
        configuration.prefix = location.prefix
        configuration.links = PhotoLinks(argument: photoUrls, ttl: photoUrlTtl) ?? .proxy
        configuration.sweepGrace = .seconds(photoSweepGrace)
        configuration.cacheMegabytes = photoCacheMb
    }
}

/// How to reach an S3-compatible store.
struct BucketOptions: ParsableArguments {
    @Option(help: "The S3 endpoint, e.g. http://127.0.0.1:8333 (default: AWS in --s3-region).") var s3Endpoint: String?
    @Option(help: "The S3 region the requests are signed for.") var s3Region = "us-east-1"
    @Option(
        help:
            "path (endpoint/BUCKET/KEY) or virtual-host (BUCKET.endpoint/KEY); default: path with --s3-endpoint, else virtual-host."
    )
    var s3Addressing: String?

    /// The client configuration for `bucket`, with the keys of the environment.
    func configuration(bucket: String) throws -> S3Configuration {
        guard let credentials = S3Credentials.fromEnvironment(ProcessInfo.processInfo.environment) else {
            throw ValidationError("an s3:// photo store needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        let endpointText = s3Endpoint ?? "https://s3.\(s3Region).amazonaws.com"
        guard let endpoint = URL(string: endpointText), ["http", "https"].contains(endpoint.scheme ?? ""),
            endpoint.host?.isEmpty == false
        else { throw ValidationError("--s3-endpoint must be an http(s) URL, e.g. http://127.0.0.1:8333") }
        let addressing: S3Addressing
        if let s3Addressing {
            guard let chosen = S3Addressing(rawValue: s3Addressing) else {
                throw ValidationError("--s3-addressing must be path or virtual-host")
            }
            addressing = chosen
        } else {
            addressing = s3Endpoint == nil ? .virtualHost : .path
        }
        guard !s3Region.isEmpty, s3Region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw ValidationError("--s3-region must be a region name such as us-east-1")
        }
        return S3Configuration(
            endpoint: endpoint, region: s3Region, bucket: bucket, addressing: addressing, credentials: credentials)
    }
}
