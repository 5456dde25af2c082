/// Where blocks live. A block works both ways: neither user sees the other's reviews and
/// comments in any list, and neither may follow the other or comment on, like or bookmark the
/// other's reviews. Blocking also ends follows both ways.
public protocol BlockStore: Sendable {
    /// `blocker` blocks (`true`) or unblocks `blocked`, idempotently; a block removes the
    /// follows between them in the same transaction. `nil` when `blocked` does not exist.
    func setBlock(_ active: Bool, blocker: Int64, blocked: Int64, at time: Timestamp) async throws -> Bool?
    /// A page of the users `blocker` blocks, newest block first (ties by user id).
    func blocks(of blocker: Int64, after: TimeKey?, limit: Int) async throws -> KeysetPage<User>
    /// Whether either user blocks the other.
    func isBlocked(_ user: Int64, _ other: Int64) async throws -> Bool
    /// Whether `user` and the author of a review block one another (`false` when the review is missing).
    func isBlocked(_ user: Int64, authorOf reviewID: Int64) async throws -> Bool
}
