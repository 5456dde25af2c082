/// The photo rows as a whole, for the start-up sweep of files that no row owns. Rows themselves
/// are written with the review or avatar they belong to (`ReviewStore`, `AccountStore`).
public protocol PhotoStore: Sendable {
    /// The ids of every stored photo.
    func storedPhotoIDs() async throws -> Set<Int64>
}
