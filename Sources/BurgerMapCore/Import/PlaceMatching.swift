/// How an import row without an id finds the place it describes: the nearest place with the
/// same name, ignoring case, within `radiusM` on the contract's sphere, ties by the lower id,
/// that no earlier row of the file has matched. Both engines find candidates with their own
/// index and decide with this rule.
public enum PlaceMatching {
    /// The contract's match distance: a place re-surveyed a few metres off is the same place;
    /// two shops 30 m apart on one street are not.
    public static let radiusM = 25.0

    /// The form in which names are compared.
    public static func nameKey(_ name: String) -> String {
        name.lowercased()
    }

    /// Whether a candidate at `distanceM` named `candidateName` matches a row named by `rowKey`
    /// (`nameKey` of the row's name).
    public static func matches(rowKey: String, candidateName: String, distanceM: Double) -> Bool {
        distanceM <= radiusM && nameKey(candidateName) == rowKey
    }

    /// Whether a match at (`distanceM`, `id`) is better than `best`: nearer, then the lower id.
    public static func isBetter(distanceM: Double, id: Int64, than best: (distanceM: Double, id: Int64)?) -> Bool {
        best.map { (distanceM, id) < ($0.distanceM, $0.id) } ?? true
    }
}
