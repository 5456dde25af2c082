import BurgerMapCore
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// The photo pipeline on the configured store: the bucket, checked, or the folder.
func openMedia(_ configuration: ServiceConfiguration) async throws -> MediaServices {
    var logger = Logger(label: "burgermap.photos")
    logger.logLevel = configuration.logLevel
    if let bucket = try await configuration.photoStore.openBucket(logger: logger) {
        return MediaServices(storage: bucket)
    }
    return MediaServices(
        storage: try configuration.photoDirectory.map { try PhotoFolder(folder: $0) }
            ?? PhotoFolder(dataDirectory: configuration.dataDirectory))
}

/// Builds the application on an opened storage engine (`stores`): sweeps orphaned photo files and
/// binds the router to the configured address.
public func buildApplication(_ configuration: ServiceConfiguration, stores: ServiceStores) async throws
    -> some ApplicationProtocol
{
    var logger = Logger(label: "burgermap")
    logger.logLevel = configuration.logLevel
    let dependencies = try await buildDependencies(configuration, stores: stores)
    let media = dependencies.media
    let events = dependencies.events
    // Photos uploaded for a review that never came are deleted after a day (uploads delete
    // them too); then files that no row owns.
    let expired = try await stores.photos.removePendingPhotos(
        uploadedBefore: Timestamp(milliseconds: Timestamp.now().milliseconds - PendingPhotos.lifetime))
    await media.storage.remove(photoIDs: expired)
    if let folder = media.storage as? PhotoFolder {
        let swept = try await folder.sweepOrphans(stores.photos)
        if swept > 0 { logger.notice("removed orphaned photo files", metadata: ["count": "\(swept)"]) }
    }
    var janitor = PhotoObjectJanitor(
        storage: media.storage, rows: stores.photos, sweepGrace: configuration.photoStore.sweepGrace)
    // The folder's files go with the deleting request; its rounds only retry what that missed.
    if !(media.storage is PhotoBucket) { janitor.interval = .seconds(30) }
    let router = buildRouter(dependencies, servesMetrics: configuration.metricsAddress == nil)
    var services: [any Service] = [
        EventLogService(log: events, logsEvents: configuration.logsEvents, logger: logger),
        NotificationService(services: dependencies.notifications),
        TileService(tiles: dependencies.tiles),
        PhotoObjectJanitorService(janitor: janitor, logger: logger),
    ]
    if dependencies.reads.writers != nil {
        services.append(ReadRoutingService(routing: dependencies.reads, events: events, now: configuration.clock))
    }
    return Application(
        router: router, server: .guardedHTTP1(configuration.connectionLimits),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: BurgerMapVersion.serverName),
        services: services, logger: logger)
}
