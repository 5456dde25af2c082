/// What a block changes besides its own row, one rule both engines obey: a block ends the follows
/// both ways, each with its own `user.unfollowed`, in the same transaction.
public enum BlockRules {
    /// A follow row as the engine's `DELETE … RETURNING` reported it.
    public struct EndedFollow: Sendable, Hashable, Comparable {
        public var follower: Int64
        public var followee: Int64

        public init(follower: Int64, followee: Int64) {
            self.follower = follower
            self.followee = followee
        }

        public static func < (a: Self, b: Self) -> Bool { (a.follower, a.followee) < (b.follower, b.followee) }
    }

    /// The events of `setBlock`: `user.blocked` when the block row was added, then one
    /// `user.unfollowed` per follow it ended (ordered by follower, then followee, so that both
    /// engines record them alike whatever order their statements returned); `user.unblocked`
    /// when an unblock removed the row. Nothing for a block that was already there or absent.
    public static func events(
        blocking active: Bool, blocker: Int64, blocked: Int64, rowChanged: Bool, endedFollows: [EndedFollow]
    ) -> [DomainEvent] {
        guard active else {
            return rowChanged ? [DomainEvent(.userUnblocked, actor: blocker, subject: blocked)] : []
        }
        var events = rowChanged ? [DomainEvent(.userBlocked, actor: blocker, subject: blocked)] : []
        for follow in endedFollows.sorted() {
            events.append(DomainEvent(.userUnfollowed, actor: follow.follower, subject: follow.followee))
        }
        return events
    }
}
