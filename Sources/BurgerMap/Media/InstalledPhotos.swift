import BurgerMapCore
import Synchronization

/// The photos a transaction tied to their rows' ids, kept outside it so that the caller can
/// publish them once it commits, or remove their images when it fails.
public final class InstalledPhotos: Sendable {
    private let photos = Mutex<[InstalledPhoto]>([])

    func append(_ photo: InstalledPhoto) { photos.withLock { $0.append(photo) } }
    var all: [InstalledPhoto] { photos.withLock { $0 } }
}
