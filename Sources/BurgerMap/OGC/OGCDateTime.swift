import BurgerMapCore

/// The `datetime` parameter of OGC API – Features Part 1 (an RFC 3339 instant, or an interval
/// `start/end` with `..` for an open end), as a range of `created_at` in milliseconds.
///
/// An instant names the whole span of its precision: `2026-05-01` the day, `2026-05-01T10Z` the
/// hour, `…T10:15:30Z` the second. GDAL 3.6 sends `datetime` for a `-where` on a date-time field,
/// with times cut to what the condition gave (`2026-05-01T10Z`) and a date alone followed by a
/// bare `T` (`2026-05-01T`): both are read here.
enum OGCDateTime {
    /// The range `[start, end)` in milliseconds, either end open (`nil`); `nil` for text that is
    /// not a `datetime`, or an interval that ends before it starts.
    static func interval(_ text: String) -> TimeRange? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let span = span(parts[0]) else { return nil }
            return TimeRange(start: span.start, end: span.end)
        case 2:
            let open: (Substring) -> Bool = { $0 == ".." || $0.isEmpty }
            var range = TimeRange(start: nil, end: nil)
            if !open(parts[0]) {
                guard let span = span(parts[0]) else { return nil }
                range.start = span.start
            }
            if !open(parts[1]) {
                guard let span = span(parts[1]) else { return nil }
                range.end = span.end
            }
            if let start = range.start, let end = range.end, start >= end { return nil }
            return range
        default:
            return nil
        }
    }

    /// The milliseconds a date or date-time names: `[start, end)`.
    static func span(_ text: Substring) -> (start: Int64, end: Int64)? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count, !range.isEmpty else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let dayStart = daysFromCivil(year: year, month: month, day: day) * 86_400_000
        let isT: (UInt8) -> Bool = { $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "t") }
        if bytes.count == 10 || (bytes.count == 11 && isT(bytes[10])) {
            return (dayStart, dayStart + 86_400_000)
        }
        guard isT(bytes[10]), let hour = number(11..<13), hour < 24 else { return nil }
        var milliseconds = hour * 3_600_000
        var precision: Int64 = 3_600_000
        var index = 13
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let minute = number((index + 1)..<(index + 3)), minute < 60 else { return nil }
            milliseconds += minute * 60_000
            precision = 60_000
            index += 3
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                // A leap second (60) is the last millisecond of its minute.
                guard let second = number((index + 1)..<(index + 3)), second <= 60 else { return nil }
                milliseconds += min(second, 59) * 1000 + (second == 60 ? 999 : 0)
                precision = 1000
                index += 3
                if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                    var digits = 0
                    var fraction: Int64 = 0
                    index += 1
                    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                        if digits < 3 { fraction = fraction * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
                        digits += 1
                        index += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in digits..<max(digits, 3) { fraction *= 10 }
                    milliseconds += fraction
                    precision = 1
                }
            }
        }
        // The offset: `Z`, or `+HH:MM` / `-HH:MM`, and nothing after it. A space stands for `+`:
        // a query's `+` is a space (`FormQuery`), so `…T10:00:00+09:00` written without `%2B`
        // arrives as `…T10:00:00 09:00`, and no timestamp has a space there otherwise.
        guard index < bytes.count else { return nil }
        var offset: Int64 = 0
        if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            guard index + 1 == bytes.count else { return nil }
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: " ")
            || bytes[index] == UInt8(ascii: "-")
        {
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                let hours = number((index + 1)..<(index + 3)), let minutes = number((index + 4)..<(index + 6)),
                hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60_000 * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let start = dayStart + milliseconds - offset
        return (start, start + precision)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
