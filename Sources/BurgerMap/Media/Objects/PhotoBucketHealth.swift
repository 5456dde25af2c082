import BurgerMapCore
import Synchronization

/// How the object store answered last: `/health` names it, and while it is not `ok` the janitor
/// probes it every few seconds, so that service resumes by itself.
final class PhotoBucketHealth: Sendable {
    private let current = Mutex(PhotoStoreState.ok)

    var state: PhotoStoreState { current.withLock { $0 } }

    func record(_ state: PhotoStoreState) { current.withLock { $0 = state } }
}

/// The object keys of photos already looked up, by photo id: a photo's key never changes, so
/// each is read from its row once per process. Bounded: past `capacity` entries the memory
/// starts over.
final class PhotoObjectKeys: Sendable {
    static let capacity = 100_000
    private let known = Mutex<[Int64: String]>([:])

    func key(photoID: Int64) -> String? { known.withLock { $0[photoID] } }

    func forget(photoID: Int64) {
        _ = known.withLock { $0.removeValue(forKey: photoID) }
    }

    func remember(_ key: String, photoID: Int64) {
        known.withLock {
            if $0.count >= Self.capacity { $0.removeAll(keepingCapacity: true) }
            $0[photoID] = key
        }
    }
}
