/// Which map tiles an event changes: the rule every instance's tile cache follows.
public enum TileChange: Sendable, Equatable {
    /// No tile (a like, a follow…).
    case none
    /// The tiles holding these cells of `level`: at each zoom up to `level` the one tile that
    /// holds each cell, and at finer zooms every tile inside one.
    case cells(level: Int, [Int64])
    /// The tiles holding these places (a review changes its place's rating and count; the
    /// place does not move, so its position is read when the event is handled).
    case places([Int64])
    /// Every tile: an event that changes places without naming them (a deleted account's
    /// reviews leave their places' ratings), or one written before events named cells.
    case everything

    /// What `event` changes.
    public static func of(_ event: DomainEvent) -> TileChange {
        switch event.kind {
        case .placeCreated, .placeEdited, .placeRemoved, .placesImported, .placesRemoved:
            guard let cells = event.details.cells, let level = event.details.cellLevel else { return .everything }
            return .cells(level: level, cells)
        case .reviewCreated, .reviewEdited, .reviewDeleted, .reviewHidden, .reviewUnhidden:
            guard let place = event.details.place else { return .everything }
            return .places([place])
        case .accountDeleted:
            return .everything
        default:
            return .none
        }
    }
}
