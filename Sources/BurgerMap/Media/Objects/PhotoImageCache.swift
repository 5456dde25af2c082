import BurgerMapCore
import DequeModule
import NIOCore
import Synchronization

/// Small images of a bucket (thumbnails, up to `largestImage`) that `--photo-urls proxy` served,
/// kept in memory for `lifetime`, at most `capacity` bytes in all (the oldest go first).
///
/// Why: every proxied image is a request to the store, and the store's answer, not the service,
/// bounds the rate (SeaweedFS on the same two cores: 1,850 thumbnails a second against 30,600
/// `/health` answers, `scripts/bench-photo-store`). A photo's bytes never change under its id,
/// so a copy is never wrong while the photo exists; the deleting instance drops its copies at
/// once (`PhotoBucket.remove`), and another instance's copy of a deleted photo lives at most
/// `lifetime`: shorter than what `Cache-Control: immutable` already lets any HTTP cache keep.
final class PhotoImageCache: Sendable {
    /// Images above this size stream from the store each time.
    static let largestImage = 64 * 1024
    /// How long a copy is served before the store is asked again.
    static let lifetime: Duration = .seconds(60)

    struct Entry: Sendable {
        var bytes: ByteBuffer
        var etag: String
        var stored: ContinuousClock.Instant
    }

    private struct State {
        var entries: [Int64: Entry] = [:]
        var order = Deque<Int64>()
        var bytes = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = capacity }

    /// The key of one image: thumbnails by the negative id.
    private func key(_ photoID: Int64, _ thumbnail: Bool) -> Int64 { thumbnail ? -photoID : photoID }

    /// A copy younger than `lifetime`, if one is kept.
    func image(photoID: Int64, thumbnail: Bool, now: ContinuousClock.Instant = .now) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries[key(photoID, thumbnail)], entry.stored.duration(to: now) < Self.lifetime
            else { return nil }
            return entry
        }
    }

    /// Keeps a copy of an image (none above `largestImage`, none at all with no capacity).
    func keep(_ bytes: ByteBuffer, etag: String, photoID: Int64, thumbnail: Bool, now: ContinuousClock.Instant = .now) {
        guard bytes.readableBytes <= Self.largestImage, bytes.readableBytes <= capacity else { return }
        let key = key(photoID, thumbnail)
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.bytes.readableBytes }
            while state.bytes + bytes.readableBytes > capacity, let oldest = state.order.popFirst() {
                if let gone = state.entries.removeValue(forKey: oldest) { state.bytes -= gone.bytes.readableBytes }
            }
            state.entries[key] = Entry(bytes: bytes, etag: etag, stored: now)
            state.order.append(key)
            state.bytes += bytes.readableBytes
            // Keys of replaced or forgotten entries stay in `order` until they come first; they
            // are bounded by the entries kept since (each keep adds one).
            if state.order.count > 4 * max(state.entries.count, 1) {
                state.order = Deque(state.order.filter { state.entries[$0] != nil })
            }
        }
    }

    /// Drops the copies of a deleted photo.
    func forget(photoID: Int64) {
        state.withLock { state in
            for key in [photoID, -photoID] {
                if let gone = state.entries.removeValue(forKey: key) { state.bytes -= gone.bytes.readableBytes }
            }
        }
    }
}
