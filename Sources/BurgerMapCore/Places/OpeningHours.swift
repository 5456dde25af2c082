import Foundation

/// Parsed weekly opening hours; `nil` from `init?` when the text uses a form we do not evaluate.
///
/// The common part of OpenStreetMap's `opening_hours` syntax, read the way opening_hours.js (the
/// reference evaluator) reads it:
/// - `24/7`; `off` or `closed` alone (closed every day);
/// - rules of an optional weekday selector and time spans: `Mo-Fr 11:00-14:00,17:00-22:00`,
///   `Mo,We-Fr`, wrap-around ranges (`Fr-Mo`), a selector alone (open all day), spans alone (every
///   day), an optional `:` after the selector, weekday names in any case, one-digit hours;
/// - spans past midnight (`18:00-02:00`, `18:00-26:00`, up to `48:00`): the part after midnight
///   belongs to the next day; `24:00` ends at midnight;
/// - `;` between rules: a later rule replaces the whole of the days it names, the tail of the
///   previous day's span past midnight included (as opening_hours.js does: mappers write
///   `Fr 18:00-02:00, Sa 12:00-02:00` to keep Friday's tail on Saturday morning); a rule
///   without weekdays names every day (where opening_hours.js, after a rule with weekdays, adds
///   it instead: `Mo-Fr 10:00-20:00; 12:00-14:00` is open 12–14 only, as OSM's wiki reads it);
/// - `,` between rules (an additional rule, `Mo-Fr 10:00-20:00, Sa 10:00-14:00`): its spans are
///   added to the days it names without replacing anything, and an additional `Sa off` closes
///   those days, as opening_hours.js evaluates them;
/// - `PH` and `SH` (public and school holidays) are not evaluated, since we know no holiday
///   calendar: a rule for holidays only (`PH off`, `SH Mo-Fr 10:00-12:00`) is skipped, and in a
///   list such as `Sa,PH` only the weekdays count. So a place with `PH off` shows as open on a
///   public holiday that falls on one of its weekdays.
///
/// Refused (`nil`): the `||` fallback separator (it only matters for states we do not evaluate,
/// such as "unknown" and comments), month, date, week and year selectors, `sunrise` and the
/// other events, open ends (`17:00+`), `open`/`unknown` and comments, `off` for part of a day,
/// anything else unknown, and texts over 255 UTF-8 bytes (OSM's limit for a tag value), with more
/// than 32 rules or more than 16 spans in a rule.
public struct OpeningHours: Sendable, Equatable {
    /// The longest text read, in UTF-8 bytes: OSM's limit for a tag value.
    public static let maxBytes = 255

    /// Minutes of one day's wall clock, `start..<end`, within `0...1440`.
    struct Interval: Sendable, Equatable {
        var start: Int16
        var end: Int16
    }

    /// Each weekday's open intervals, Monday first, sorted and merged. A span past midnight is
    /// stored split, its tail on the next day, so evaluating looks at one day only.
    let week: [[Interval]]

    public init?(_ text: String) {
        guard let week = OpeningHoursParser.week(of: text) else { return nil }
        self.week = week
    }

    /// Whether the place is open at `date`, judged by the wall clock of `timeZone`.
    public func isOpen(at date: Date, in timeZone: TimeZone) -> Bool {
        guard let clock = WallClock(date, in: timeZone) else { return false }
        let minute = Int16(clock.minute)
        for interval in week[clock.weekday] {
            if minute < interval.start { return false }
            if minute < interval.end { return true }
        }
        return false
    }
}

/// A moment read on a zone's wall clock: the weekday (0 is Monday) and the minute of the day.
///
/// Computed as UTC plus the offset in force at that moment (`secondsFromGMT(for:)`), which is
/// what `Calendar` reads too, DST included: no moment reads as a time skipped by a spring-forward
/// gap, and the two moments of a fall-back repeat read the same time. A whole `isOpen` costs
/// about 0.1 µs this way, while `Calendar.dateComponents` alone costs 0.5–0.75 µs on Linux, and
/// it runs for every place of a page filtered by `open_now`.
struct WallClock: Equatable {
    var weekday: Int
    var minute: Int

    init?(_ date: Date, in timeZone: TimeZone) {
        let seconds = date.timeIntervalSince1970
        // Beyond ±3 million years (and for NaN or infinity) the integer maths below could trap.
        guard seconds.magnitude < 1e14 else { return nil }
        let local = Int(seconds.rounded(.down)) + timeZone.secondsFromGMT(for: date)
        let day = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        // 1970-01-01 was a Thursday, weekday 3 counting from Monday.
        weekday = ((day + 3) % 7 + 7) % 7
        minute = (local - day * 86_400) / 60
    }
}
