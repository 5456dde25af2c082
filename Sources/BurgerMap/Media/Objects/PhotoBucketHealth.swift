import BurgerMapCore
import Synchronization

/// How the object store answered last: `/health` names it, and while it is not `ok` the janitor
/// probes it every few seconds, so that service resumes by itself.
final class PhotoBucketHealth: Sendable {
    private let current = Mutex(PhotoStoreState.ok)

    var state: PhotoStoreState { current.withLock { $0 } }

    func record(_ state: PhotoStoreState) { current.withLock { $0 = state } }
}
