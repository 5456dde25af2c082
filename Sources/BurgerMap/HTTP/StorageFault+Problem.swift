import BurgerMapCore

extension StorageFault {
    /// The problem document of the fault.
    var problem: Problem {
        let key: MessageKey =
            switch (kind, place) {
            case (.full, .database): .storageFull
            case (.readOnly, .database): .storageReadOnly
            case (.full, .photos): .photoStorageFull
            case (.readOnly, .photos): .photoStorageReadOnly
            }
        return Problem(
            kind == .full ? .storageFull : .storageReadOnly, key,
            headers: [.retryAfter: "10"])
    }
}
