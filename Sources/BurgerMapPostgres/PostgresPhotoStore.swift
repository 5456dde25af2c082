import BurgerMap
import Logging
import PostgresNIO

/// The photo rows as a whole, for the start-up sweep of files that no row owns (rows are
/// written with their review or avatar).
public struct PostgresPhotoStore: PhotoStore {
    let client: PostgresClient
    let logger: Logger

    /// The ids of every stored photo.
    public func storedPhotoIDs() async throws -> Set<Int64> {
        var ids: Set<Int64> = []
        for try await id in try await client.query("SELECT id FROM photos", logger: logger).decode(Int64.self) {
            ids.insert(id)
        }
        return ids
    }
}
