/// A comment on a review (`Comment` in the contract).
public struct Comment: Sendable, Equatable {
    public var id: Int64
    public var reviewID: Int64
    public var author: User
    public var text: String
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    /// A comment with every field (storage engines build these).
    public init(id: Int64, reviewID: Int64, author: User, text: String, createdAt: Timestamp, updatedAt: Timestamp) {
        self.id = id
        self.reviewID = reviewID
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The keyset position of this comment in its review's oldest-first list.
    public var listKey: TimeKey { TimeKey(time: createdAt, id: id) }
}
