import BurgerMapCore

/// The SQLite engine serves every feature's store; most operations already have the protocols'
/// shape, the rest are adapted here.
extension AppDatabase: AccountStore, ReviewStore, IdempotencyStore, PhotoStore, SocialStore, FeedStore, StoreHealth,
    LoginThrottleStore
{
    public func feed(of viewer: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<Review> {
        try await feed(of: viewer, after: after, limit: limit, plan: .automatic, window: Self.feedWindow)
    }
}
