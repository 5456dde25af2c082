import Synchronization

/// What a process remembers per photo image (its ETag, its object key, its latest presigned
/// URL): a photo's bytes and key never change under its id, so each is worked out once.
/// Bounded: past `capacity` entries the memory starts over (a value is then worked out again).
final class PhotoMemory<Value: Sendable>: Sendable {
    static var capacity: Int { 100_000 }
    private let known = Mutex<[Int64: Value]>([:])

    /// The key of one image: thumbnails by the negative id.
    private func key(_ photoID: Int64, _ thumbnail: Bool) -> Int64 { thumbnail ? -photoID : photoID }

    func value(photoID: Int64, thumbnail: Bool = false) -> Value? {
        known.withLock { $0[key(photoID, thumbnail)] }
    }

    func remember(_ value: Value, photoID: Int64, thumbnail: Bool = false) {
        known.withLock {
            if $0.count >= Self.capacity { $0.removeAll(keepingCapacity: true) }
            $0[key(photoID, thumbnail)] = value
        }
    }

    /// Forgets both images of a deleted photo.
    func forget(photoID: Int64) {
        known.withLock {
            $0.removeValue(forKey: photoID)
            $0.removeValue(forKey: -photoID)
        }
    }
}
