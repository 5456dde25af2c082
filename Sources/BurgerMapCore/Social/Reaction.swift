/// A viewer's own mark on a review: a like, or a bookmark ("want to go there"). Both are stored
/// as a (user, review) pair with a time; the review's count follows the pairs (schema triggers).
public enum Reaction: String, Sendable, CaseIterable {
    case like
    case bookmark
}

/// A reaction after a toggle: whether the viewer has it, and the review's exact count.
public struct ReactionState: Sendable, Equatable {
    public var active: Bool
    public var count: Int

    /// A reaction's state after a toggle (storage engines build these).
    public init(active: Bool, count: Int) {
        self.active = active
        self.count = count
    }
}

extension Reaction {
    /// The event of setting (`active`) or taking back this reaction.
    public func eventKind(_ active: Bool) -> EventKind {
        switch (self, active) {
        case (.like, true): .reviewLiked
        case (.like, false): .reviewUnliked
        case (.bookmark, true): .reviewBookmarked
        case (.bookmark, false): .reviewUnbookmarked
        }
    }
}
