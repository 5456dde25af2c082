import Foundation

/// The rules of reviews: their fields' (the contract's), and the events of the review writes, one
/// rule both engines obey. Each review write also recounts
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

    /// `rating` as text in a form: an integer 1…5.
    public static func rating(_ text: String, into errors: inout [FieldError]) -> Int? {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            errors.append(FieldError(field: "rating", code: "not_an_integer", .fieldNotInteger))
            return nil
        }
        let count = errors.count
        checkRating(value, into: &errors)
        return errors.count == count ? value : nil
    }

    /// `rating`: 1…5.
    public static func checkRating(_ value: Int, into errors: inout [FieldError]) {
        guard !(1...5).contains(value) else { return }
        errors.append(FieldError(field: "rating", code: "out_of_range", .fieldOutOfRange, ["min": "1", "max": "5"]))
    }
}
