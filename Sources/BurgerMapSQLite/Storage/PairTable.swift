import BurgerMapCore
import GRDB

/// A table of (actor, target, created_at) pairs under a composite primary key: likes,
/// bookmarks, follows. The key turns adding a pair that is there into a no-op, however many
/// arrive at once, and the schema's triggers move the counts in the same statement.
struct PairTable {
    var name: String
    var actor: String
    var target: String

    /// Adds (`active`) or removes the pair; adding one that is there keeps its first time.
    /// Returns whether the pair changed (an add of a pair that was there, or a removal of one
    /// that was not, changes nothing: no event).
    @discardableResult
    func set(_ active: Bool, actor actorID: Int64, target targetID: Int64, at time: Timestamp, in db: Database)
        throws -> Bool
    {
        if active {
            try db.execute(
                sql: "INSERT INTO \(name) (\(actor), \(target), created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                arguments: [actorID, targetID, time.milliseconds])
        } else {
            try db.execute(
                sql: "DELETE FROM \(name) WHERE \(actor) = ? AND \(target) = ?", arguments: [actorID, targetID])
        }
        // The statement's own rows only: the count triggers' changes are not counted.
        return db.changesCount > 0
    }
}
