/// The events of the review writes, one rule both engines obey. Each review write also recounts
/// its place's statistics (`review_count`, `rating_sum`, the cover, the cells' reviewed counts),
/// which each engine does in its `refreshPlaceStats`; only the author edits or deletes.
public enum ReviewRules {
    /// The event of a new review of `place`.
    public static func created(_ review: Int64, by author: Int64, place: Int64) -> DomainEvent {
        DomainEvent(.reviewCreated, actor: author, subject: review, details: EventDetails(place: place))
    }

    /// The event of an edit, recorded for every accepted edit, even one that changed nothing.
    public static func edited(_ review: Int64, by author: Int64, place: Int64) -> DomainEvent {
        DomainEvent(.reviewEdited, actor: author, subject: review, details: EventDetails(place: place))
    }

    /// The event of a deletion by its author.
    public static func deleted(_ review: Int64, by author: Int64, place: Int64) -> DomainEvent {
        DomainEvent(.reviewDeleted, actor: author, subject: review, details: EventDetails(place: place))
    }
}
