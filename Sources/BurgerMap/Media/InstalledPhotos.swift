import BurgerMapCore
import Synchronization

/// The photo ids a transaction gave final file names to, kept outside it so that the caller can
/// remove those files when the transaction fails.
final class InstalledPhotos: Sendable {
    private let ids = Mutex<[Int64]>([])

    func append(_ id: Int64) { ids.withLock { $0.append(id) } }
    var all: [Int64] { ids.withLock { $0 } }
}
