import BurgerMapCore
import Dispatch
import Metrics

extension AppDatabase {
    /// Runs a database operation and records its duration as
    /// `burgermap_db_query_duration{operation="…"}`, so `/metrics` shows where storage time goes.
    func measured<T>(_ operation: String, _ body: () async throws -> T) async rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            Timer(label: "burgermap_db_query_duration", dimensions: [("operation", operation)])
                .recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
        }
        return try await body()
    }
}
