import Foundation

/// A moment in UTC with millisecond precision, shown as RFC 3339 (`2026-11-21T08:30:00.123Z`).
///
/// Stored as milliseconds since 1970 so that keyset cursors compare integers.
public struct Timestamp: Sendable, Hashable, Comparable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The current time.
    public static func now() -> Timestamp {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }

    /// RFC 3339 text in UTC with exactly three fractional digits.
    public var rfc3339: String {
        let seconds = milliseconds.floorDivided(by: 1000)
        let millis = Int(milliseconds - seconds * 1000)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
            + ".\(pad(Int32(millis), 3))Z"
    }
}

extension Int64 {
    /// Division that rounds towards negative infinity.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
