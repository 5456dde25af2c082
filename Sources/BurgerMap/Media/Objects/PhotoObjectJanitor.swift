import BurgerMapCore
import Foundation
import Logging
import ServiceLifecycle

/// Finishes what photo deletions and failed uploads leave, beside the requests, on every
/// instance: it removes the images of deleted photos that the deletion queue names (both
/// stores: every deletion of a photo row queues its key in the deleting transaction, so a
/// process killed after the commit loses nothing), and for a bucket sweeps objects that no row
/// names (`PhotoBucket.sweepOrphans`) and probes the store while it is away, so that service
/// resumes by itself. Keys whose removal the store does not confirm stay queued for the next
/// round. Several instances may drain one queue: removing an object twice is harmless.
public struct PhotoObjectJanitor: Sendable {
    let storage: any PhotoStorage
    let rows: any PhotoStore
    /// How old an object with no row must be before the sweep takes it (`--photo-sweep-grace`).
    let sweepGrace: Duration
    let now: @Sendable () -> Timestamp
    /// The pause between rounds of the queue (and probes of an absent store).
    var interval: Duration = .seconds(5)

    public init(
        storage: any PhotoStorage, rows: any PhotoStore, sweepGrace: Duration,
        now: @escaping @Sendable () -> Timestamp = { .now() }
    ) {
        self.storage = storage
        self.rows = rows
        self.sweepGrace = sweepGrace
        self.now = now
    }

    /// The pause between sweeps of a bucket: half the grace, from 1 second to 10 minutes (a
    /// walk lists every object of the prefix, 1,000 a request).
    var sweepInterval: Duration { min(max(sweepGrace / 2, .seconds(1)), .seconds(600)) }

    /// Removes the objects of every queued deletion, `PhotoObjectSweep.batch` keys a round;
    /// answers how many keys it took off the queue. Throws when the store refuses a round (its
    /// keys stay queued).
    @discardableResult
    public func drainQueue() async throws -> Int {
        var total = 0
        while true {
            let keys = try await rows.queuedPhotoObjectDeletions(limit: PhotoObjectSweep.batch)
            guard !keys.isEmpty else { return total }
            try await storage.removeObjects(keys: keys)
            try await rows.confirmPhotoObjectDeletions(keys)
            total += keys.count
            if keys.count < PhotoObjectSweep.batch { return total }
        }
    }

    /// One sweep of a bucket (nothing for the folder, swept at start-up); answers how many
    /// objects it removed.
    @discardableResult
    public func sweep() async throws -> Int {
        guard let bucket = storage as? PhotoBucket else { return 0 }
        return try await bucket.sweepOrphans(rows, now: now(), grace: sweepGrace)
    }

    /// Runs rounds until cancelled or the service shuts down.
    public func run(logger: Logger) async {
        var lastSweep: ContinuousClock.Instant? = nil
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let bucket = storage as? PhotoBucket, bucket.state != .ok { await bucket.probe() }
            if storage.state == .ok {
                do {
                    let removed = try await drainQueue()
                    if removed > 0 { logger.info("removed deleted photos' images", metadata: ["count": "\(removed)"]) }
                    if storage is PhotoBucket, lastSweep.map({ $0.duration(to: .now) >= sweepInterval }) ?? true {
                        lastSweep = .now
                        let swept = try await sweep()
                        if swept > 0 {
                            logger.notice("removed orphaned photo objects", metadata: ["count": "\(swept)"])
                        }
                    }
                } catch {
                    logger.warning("photo clean-up round failed", metadata: ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: interval)
        }
    }
}

/// Runs the janitor as a service of the application.
struct PhotoObjectJanitorService: Service {
    let janitor: PhotoObjectJanitor
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await janitor.run(logger: logger) }
    }
}
