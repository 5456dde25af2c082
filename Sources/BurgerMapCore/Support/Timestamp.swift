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

    /// A Foundation date, to the millisecond below.
    public init(date: Date) {
        milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The current time: the system clock, or the clock a test runs the service under.
    public static func now() -> Timestamp {
        if let clock = ServiceClock.current { return clock() }
        return Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The moment as a Foundation date.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }

    /// RFC 3339 text in UTC with exactly three fractional digits.
    public var rfc3339: String {
        var bytes: [UInt8] = []
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the RFC 3339 text's UTF-8 bytes (every list item has one or two of these).
    package func appendRFC3339(to bytes: inout [UInt8]) {
        let seconds = milliseconds.floorDivided(by: 1000)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func digits(_ value: Int, _ width: Int, then separator: UInt8) {
            // Years before 0 keep their sign (and years past 9999 their extra digits).
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.appendDecimal(UInt64(value.magnitude), minimumWidth: width)
            bytes.append(separator)
        }
        digits(Int(parts.tm_year) + 1900, 4, then: UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2, then: UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2, then: UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2, then: UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2, then: UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2, then: UInt8(ascii: "."))
        digits(Int(milliseconds - seconds * 1000), 3, then: UInt8(ascii: "Z"))
    }
}

extension Int64 {
    /// Division that rounds towards negative infinity.
    package func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension [UInt8] {
    /// Appends the decimal digits of `number`, zero-padded to `minimumWidth`, without an
    /// intermediate `String` (every list writes ids, counts and times this way).
    package mutating func appendDecimal(_ number: UInt64, minimumWidth: Int = 1) {
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: 20 digits at most
        Swift.withUnsafeMutableBytes(of: &buffer) { digits in
            var rest = number
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0 || digits.count - start < Swift.min(minimumWidth, digits.count)
            append(contentsOf: digits[start...])
        }
    }

    /// Appends the low `digits` hex digits of `number`, zero-padded (request ids, percent and
    /// `\u` escapes).
    package mutating func appendHex(_ number: UInt64, digits: Int, uppercase: Bool = false) {
        let letters = uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")
        for shift in stride(from: 4 * (digits - 1), through: 0, by: -4) {
            let digit = UInt8((number >> UInt64(shift)) & 15)
            append(digit < 10 ? UInt8(ascii: "0") + digit : letters + digit - 10)
        }
    }
}

/// Where the service reads the time. The service reads the system clock; a test runs requests
/// under a clock it moves by hand (`ServiceClock.$current.withValue`), so that token expiry and
/// "newest first" orders are tested without waiting on the wall clock. A task-local value
/// reaches every task a request starts, and costs nothing when unset.
public enum ServiceClock {
    @TaskLocal public static var current: (@Sendable () -> Timestamp)?
}
