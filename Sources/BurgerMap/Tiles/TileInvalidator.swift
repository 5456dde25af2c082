import BurgerMapCore
import Logging
import ServiceLifecycle
import Synchronization

/// Follows the event log and makes the tile cache forget exactly the tiles each event changes
/// (`TileChange`), on every instance: the next request for such a tile is built anew, every
/// other tile keeps its cache entry. On PostgreSQL another instance's write reaches this one
/// through the log's `NOTIFY` within milliseconds (the poll's second at worst).
final class TileInvalidator: Sendable {
    let cache: TileCache
    let events: EventLog
    let places: any PlaceStore
    /// The id of the last event handled; `nil` until the log's end is known.
    private let position = Mutex<Int64?>(nil)
    private let logger = Logger(label: "burgermap.tiles")

    init(cache: TileCache, events: EventLog, places: any PlaceStore) {
        self.cache = cache
        self.events = events
        self.places = places
    }

    /// Reads the log's end: tiles built from now on may be kept.
    func start() async throws {
        let last = try await events.store.lastEventID()
        position.withLock { $0 = last }
        cache.setFollowing(true)
    }

    /// Handles every event written since the last one handled (what `run` does as events come;
    /// tests call this instead of running the service).
    func catchUp() async throws {
        guard var last = position.withLock({ $0 }) else { return try await start() }
        while true {
            let page = try await events.store.events(after: last, limit: EventLog.pageSize)
            guard !page.isEmpty else { return }
            for event in page { await handle(event) }
            last = page[page.count - 1].id
        }
    }

    /// Follows the log until cancelled.
    func run() async {
        while position.withLock({ $0 }) == nil, !Task.isCancelled {
            do {
                try await start()
            } catch {
                try? await Task.sleep(for: events.pollInterval)
            }
        }
        guard let start = position.withLock({ $0 }) else { return }
        for await event in events.subscribe(after: start) {
            await handle(event)
        }
    }

    private func handle(_ recorded: RecordedEvent) async {
        switch TileChange.of(recorded.event) {
        case .none:
            break
        case .cells(let level, let cells):
            cache.forget(cells: cells, at: level)
        case .places(let ids):
            var cells: [Int64] = []
            do {
                for id in ids {
                    // A place deleted since: its removal's event forgets its tiles.
                    guard let place = try await places.place(id: id) else { continue }
                    cells.append(
                        PlaceCells.cell(
                            of: PlaceCells.key(lat: place.lat, lng: place.lng), at: PlaceBatchFacts.finestCellLevel))
                }
                cache.forget(cells: cells, at: PlaceBatchFacts.finestCellLevel)
            } catch {
                // The position cannot be read (the database away): forget everything rather
                // than keep a tile that may be stale.
                logger.warning(
                    "tile cache cleared: a review's place could not be read", metadata: ["error": "\(error)"])
                cache.forgetAll()
            }
        case .everything:
            cache.forgetAll()
        }
        position.withLock { $0 = recorded.id }
    }
}

/// The vector tiles' cache, its invalidator and how tiles are served.
public struct TileServices: Sendable {
    let cache: TileCache
    let invalidator: TileInvalidator
    let maxAge: Int

    init(_ configuration: TileConfiguration, events: EventLog, places: any PlaceStore) async {
        cache = TileCache(capacityBytes: configuration.cacheMegabytes * 1_048_576)
        invalidator = TileInvalidator(cache: cache, events: events, places: places)
        maxAge = configuration.maxAge
        // The log's end now, when the database answers; else `run` keeps asking.
        try? await invalidator.start()
    }

    /// Handles the events written so far (tests, which run no background service).
    public func catchUp() async throws { try await invalidator.catchUp() }

    /// How many tiles and bytes the cache holds.
    public var cacheUsage: (tiles: Int, bytes: Int) { cache.usage }
}

/// `burgermap serve`'s vector tile settings.
public struct TileConfiguration: Sendable {
    /// The most memory encoded tiles may take (`--vector-tile-cache-mb`, 64); 0 keeps none.
    public var cacheMegabytes = 64
    /// `Cache-Control: max-age` of tiles (`--vector-tile-max-age`, 0: clients revalidate every
    /// time, which a kept tile answers with `304` at almost no cost).
    public var maxAge = 0

    public init() {}
}

/// Runs the tile invalidator beside the HTTP server until the service shuts down.
struct TileService: Service {
    let tiles: TileServices

    func run() async throws {
        await cancelWhenGracefulShutdown { await tiles.invalidator.run() }
    }
}
