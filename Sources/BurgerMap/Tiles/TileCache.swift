import BurgerMapCore
import Crypto
import NIOCore
import Synchronization

/// One encoded tile as it is served: its bytes, gzipped once, and a strong ETag for each.
struct CachedTile: Sendable {
    /// The MVT bytes; empty for a tile without places (answered `204`).
    let body: ByteBuffer
    let gzipped: ByteBuffer
    /// The identity bytes' tag: a hash of the bytes, so every instance and every restart gives
    /// the same tile the same tag, and a rebuilt tile whose bytes did not change keeps it.
    let etag: String
    /// The gzipped bytes' own tag (`Vary: Accept-Encoding`: a different representation).
    let gzipETag: String

    var size: Int { body.readableBytes + gzipped.readableBytes + 160 }

    init(bytes: [UInt8]) throws {
        body = ByteBuffer(bytes: bytes)
        var input = body
        gzipped = bytes.isEmpty ? ByteBuffer() : try input.compress(with: .gzip())
        let digest = SHA256.hash(data: bytes)
        let tag = Base64URL.encode(Array(digest.prefix(15)))
        etag = "\"\(tag)\""
        gzipETag = "\"\(tag)-gz\""
    }
}

/// The encoded tiles of this instance, bounded in bytes (`--vector-tile-cache-mb`), least
/// recently used first out.
///
/// Exact at every moment that matters: `TileInvalidator` forgets the tiles each event changes
/// (on every instance, through the event log), and a tile built while an event was being
/// handled is not kept (`store(_:for:builtAt:)`), since its reads may predate the write.
final class TileCache: Sendable {
    struct Key: Hashable, Sendable {
        var address: TileAddress
        var reviewedOnly: Bool
    }

    private struct Slot {
        var tile: CachedTile
        var lastUse: UInt64
    }

    private struct State {
        var slots: [Key: Slot] = [:]
        var bytes = 0
        var tick: UInt64 = 0
        /// Moves on every invalidation: a build that saw another generation is not kept.
        var generation: UInt64 = 0
        /// Whether the invalidator knows where it reads the event log from; until it does, no
        /// tile is kept (none could be forgotten in time).
        var following = false
    }

    /// The most bytes of tiles kept.
    let capacity: Int
    private let state = Mutex(State())

    init(capacityBytes: Int) {
        capacity = capacityBytes
    }

    /// A kept tile, counted as used.
    func tile(_ key: Key) -> CachedTile? {
        state.withLock { state in
            guard var slot = state.slots[key] else { return nil }
            state.tick &+= 1
            slot.lastUse = state.tick
            state.slots[key] = slot
            return slot.tile
        }
    }

    /// The generation to pass to `store` with a tile built from reads that start now.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Keeps a tile unless an invalidation happened since its reads began, the invalidator is
    /// not following the log, or the cache holds nothing at all.
    func store(_ tile: CachedTile, for key: Key, builtAt generation: UInt64) {
        guard capacity > 0, tile.size <= capacity else { return }
        state.withLock { state in
            guard state.following, state.generation == generation else { return }
            state.tick &+= 1
            if let old = state.slots.updateValue(Slot(tile: tile, lastUse: state.tick), forKey: key) {
                state.bytes -= old.tile.size
            }
            state.bytes += tile.size
            if state.bytes > capacity { Self.evict(&state, below: capacity * 3 / 4) }
        }
    }

    /// Drops the least recently used tiles until the cache holds at most `target` bytes: a
    /// quarter of the cache at once, so that the sort this takes is paid once per many stores.
    private static func evict(_ state: inout State, below target: Int) {
        for (key, slot) in state.slots.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard state.bytes > target else { break }
            state.slots[key] = nil
            state.bytes -= slot.tile.size
        }
    }

    /// Forgets the tiles of these cells of `level`, at every zoom.
    func forget(cells: [Int64], at level: Int) {
        state.withLock { state in
            state.generation &+= 1
            guard !state.slots.isEmpty else { return }
            for cell in cells {
                for z in TileAddress.zooms where z <= level {
                    let tileCell = cell >> Int64(2 * (level - z))
                    let (x, y) = PlaceCells.split(tileCell)
                    guard let address = TileAddress(z: z, x: x, y: y) else { continue }
                    for reviewedOnly in [false, true] {
                        if let old = state.slots.removeValue(forKey: Key(address: address, reviewedOnly: reviewedOnly))
                        {
                            state.bytes -= old.tile.size
                        }
                    }
                }
            }
            guard level < TileAddress.zooms.upperBound else { return }
            // Finer tiles inside the cells: found among the kept ones (a batch this coarse is
            // a large import, rare).
            let named = Set(cells)
            for (key, slot) in state.slots where key.address.z > level {
                if named.contains(key.address.cell.cell >> Int64(2 * (key.address.z - level))) {
                    state.slots[key] = nil
                    state.bytes -= slot.tile.size
                }
            }
        }
    }

    /// Forgets every tile.
    func forgetAll() {
        state.withLock { state in
            state.generation &+= 1
            state.slots = [:]
            state.bytes = 0
        }
    }

    /// Starts or stops keeping tiles (stopping forgets them all).
    func setFollowing(_ following: Bool) {
        state.withLock { state in
            state.generation &+= 1
            state.following = following
            if !following {
                state.slots = [:]
                state.bytes = 0
            }
        }
    }

    /// How many tiles and bytes are kept (for `/metrics` and tests).
    var usage: (tiles: Int, bytes: Int) { state.withLock { ($0.slots.count, $0.bytes) } }
}
