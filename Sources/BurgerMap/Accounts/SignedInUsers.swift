import BurgerMapCore
import Synchronization

/// The signed-in users' rows with their standing, as the token middlewares read them on every
/// request that carries a token, kept in memory between the writes that could change them.
///
/// Reading the user was one more database round trip per request: on PostgreSQL the feed's
/// first page went from 1.0× to 0.74× the throughput of the same store call without it, and
/// its one-connection latency to 1.52× (`scripts/bench-ceiling --engines`, docs/performance/http-path.md).
///
/// When a kept row is used:
/// - only while no write has rung the event store's signal since it was read
///   (`EventSignal.writeRings`): every write of this process that changes an account (a
///   suspension, a profile, an avatar, a deletion, a moderator role) rings it when it commits,
///   before its answer goes out, so this instance refuses a suspended account's tokens at once;
///   on PostgreSQL other instances' writes ring it too, by `NOTIFY`;
/// - and for `lifetime` (2 s) at most: the bound for a change no ring announces, such as the
///   command line's (`burgermap admin`) on SQLite, or SQL run by hand.
///
/// The count is read before the row, so a row read while a write commits is never used after
/// that write's ring. Any write empties the memory in effect (busy writers make it miss more,
/// never serve stale rows); it holds `capacity` users at most.
final class SignedInUsers: Sendable {
    let accounts: any AccountStore
    /// The event store's signal, which every write rings when it commits.
    let writes: EventSignal
    /// The longest a row is used, in milliseconds.
    let lifetime: Int64
    /// The most users kept: past it, the memory starts again from empty.
    let capacity: Int
    let now: @Sendable () -> Timestamp
    private let kept = Mutex<[Int64: Kept]>([:])

    struct Kept {
        var user: User
        var standing: AccountStanding
        /// `writes.writeRings` before the row was read.
        var writeRings: UInt64
        var readAt: Int64
    }

    init(
        accounts: any AccountStore, writes: EventSignal, lifetime: Duration = .seconds(2), capacity: Int = 10_000,
        now: @escaping @Sendable () -> Timestamp
    ) {
        self.accounts = accounts
        self.writes = writes
        self.lifetime = lifetime.milliseconds
        self.capacity = capacity
        self.now = now
    }

    /// The account with its standing (`AccountStore.authenticatedUser`), from memory when no
    /// write may have changed it since it was read.
    func user(id: Int64) async throws -> (user: User, standing: AccountStanding)? {
        let writeRings = writes.writeRings
        let time = now().milliseconds
        if let kept = kept.withLock({ $0[id] }), kept.writeRings == writeRings, kept.readAt <= time,
            time - kept.readAt < lifetime
        {
            return (kept.user, kept.standing)
        }
        guard let found = try await accounts.authenticatedUser(id: id) else { return nil }
        kept.withLock { kept in
            if kept.count >= capacity, kept[id] == nil { kept.removeAll(keepingCapacity: true) }
            kept[id] = Kept(user: found.user, standing: found.standing, writeRings: writeRings, readAt: time)
        }
        return found
    }
}
