import Foundation
import Synchronization

/// The rule for a place's time zone: an IANA zone name, the same for the API, the importer and
/// the schema.
public enum PlaceTimeZone {
    /// The IANA regions whose zones name a place's clock. Names outside them are legacy links
    /// (`US/Eastern`, `Japan`), abbreviations (`EST`, `KST`) or fixed offsets (`Etc/GMT-9`,
    /// `GMT+9`), none of which says where a place is or follows its DST.
    static let regions: Set<Substring> = [
        "Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific",
    ]

    /// Zone names are short: the longest in the database has about 30 bytes.
    static let maxBytes = 64

    /// Zones already looked up. Only accepted names are stored, and there are about 600 of those,
    /// so it stays small whatever is asked; it saves the 0.5 µs `TimeZone(identifier:)` costs on
    /// Linux, since this runs for every place of a page filtered by `open_now`.
    private static let cache = Mutex<[String: TimeZone]>([:])

    /// The zone for an IANA name such as "Asia/Seoul", checked against the system's zone database
    /// as Foundation reads it; abbreviations ("KST", "EST"), offsets ("GMT+9"), legacy links
    /// ("US/Eastern") and unknown names are refused, and names are case-sensitive as in the
    /// database. "UTC" and "Etc/UTC" are accepted.
    ///
    /// A name counts when it is in a region above and Foundation opens a zone of exactly that
    /// name. `TimeZone.knownTimeZoneIdentifiers` alone would not do: on Linux it lists ICU's
    /// older names and lacks current ones such as "Asia/Kolkata" and "Asia/Ho_Chi_Minh".
    public static func zone(named name: String) -> TimeZone? {
        if let zone = cache.withLock({ $0[name] }) { return zone }
        guard isAcceptable(name), let zone = TimeZone(identifier: name) else { return nil }
        // "UTC" opens as "GMT"; every other name must come back as itself, not as a lenient match.
        guard name == "UTC" || zone.identifier == name else { return nil }
        cache.withLock { $0[name] = zone }
        return zone
    }

    /// The shape of an accepted name, checked before Foundation is asked.
    static func isAcceptable(_ name: String) -> Bool {
        if name == "UTC" || name == "Etc/UTC" { return true }
        guard name.utf8.count <= maxBytes, let slash = name.firstIndex(of: "/"), regions.contains(name[..<slash]) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "_"), UInt8(ascii: "-"),
                UInt8(ascii: "+"):
                true
            default: false
            }
        }
    }
}
