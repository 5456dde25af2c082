extension Double {
    /// A decimal number as a client writes one, `[+-]digits[.digits][e[+-]digits]`, and nothing
    /// else: no spaces, no `inf`, `nan` or hexadecimal forms, no other byte. Swift's
    /// `Double(String)` hands the text to C's `strtod`, which stops at a NUL, so
    /// `37.5%00abc` read as 37.5.
    ///
    /// Inlinable, so that the service's module reads its query's `Substring`s without a generic
    /// call per byte (about 3 µs of a nearby request's two coordinates in a `perf` profile,
    /// 2026-11-27).
    @inlinable package init?(decimal text: some StringProtocol) {
        var digits = 0
        var exponentAt: Int? = nil
        var dots = 0
        var index = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                // A sign opens the number or its exponent.
                guard index == 0 || exponentAt == index - 1 else { return nil }
            case UInt8(ascii: "."):
                guard exponentAt == nil else { return nil }
                dots += 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard exponentAt == nil, digits > 0 else { return nil }
                exponentAt = index
            default:
                return nil
            }
            index += 1
        }
        guard digits > 0, dots <= 1, let value = Double(String(text)), value.isFinite else { return nil }
        self = value
    }
}
