import AsyncHTTPClient
import BurgerMapCore
import BurgerMapObjectStorage
import Foundation
import Logging

/// Where photos live and how their URLs are answered (`--photo-store`, `--s3-*`,
/// `--photo-urls`, `--photo-url-ttl`, `--photo-sweep-grace`).
public struct PhotoStoreConfiguration: Sendable {
    /// The bucket (`nil`: the photo folder, the default).
    public var bucket: S3Configuration?
    /// The prefix of every object of the service in the bucket.
    public var prefix = ""
    /// How photo URLs are answered (only a bucket has a choice).
    public var links = PhotoLinks.service
    /// How old an object with no row must be before the sweep removes it (1 hour).
    public var sweepGrace: Duration = .seconds(3600)
    /// Memory for thumbnails served in `proxy` mode (`--photo-cache-mb`, 32 MiB; 0 keeps none).
    public var cacheMegabytes = 32

    public init() {}

    /// The bucket store this configuration names, checked: a refused key or a missing bucket
    /// throws here, at start, with the store's own words.
    func openBucket(logger: Logger) async throws -> PhotoBucket? {
        guard let bucket else { return nil }
        let client = S3Client(configuration: bucket, httpClient: S3Client.sharedHTTPClient)
        let store = PhotoBucket(
            client: client, prefix: prefix, sweepGrace: sweepGrace, cacheBytes: cacheMegabytes << 20, logger: logger)
        do {
            try await store.checkAccess()
        } catch let error as S3Error {
            throw PhotoStoreStartError(bucket: bucket.bucket, endpoint: bucket.endpoint.absoluteString, error: error)
        }
        return store
    }
}

/// The photo store refused the service at start: the message says which bucket, where, and why.
public struct PhotoStoreStartError: Error, CustomStringConvertible {
    let bucket: String
    let endpoint: String
    let error: S3Error

    public var description: String {
        "the photo store s3://\(bucket) at \(endpoint) cannot be used: \(error)"
    }
}
