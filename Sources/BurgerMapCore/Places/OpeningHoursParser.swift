/// The reader behind `OpeningHours.init?`: a tokenizer over the UTF-8 bytes, then one pass over
/// the rules that fills the week. Every read is bounds-checked, so no input can trap.
struct OpeningHoursParser {
    /// Bounds on work and storage; the byte bound already keeps them small, these keep the
    /// shape sane (a real value has a handful of rules and at most a few spans each).
    static let maxRules = 32
    static let maxSpansPerRule = 16

    enum Token: Equatable {
        /// 0 is Monday.
        case weekday(Int)
        /// `PH` or `SH`.
        case holiday
        /// Minutes since midnight, `0...2880` (`48:00`).
        case time(Int)
        case dash, comma, semicolon, colon
        /// `off` or `closed`.
        case off
        /// `24/7`.
        case always

        var startsSelector: Bool {
            switch self {
            case .weekday, .holiday: true
            default: false
            }
        }
    }

    /// What one rule does to the week.
    enum Rule {
        /// Open during `spans` (minutes, `end` up to 2880) on the days of the `days` bit mask.
        case open(days: UInt8, spans: [(start: Int, end: Int)])
        case closed(days: UInt8)
        /// A rule for holidays, which we do not evaluate.
        case skipped
    }

    static let everyDay: UInt8 = 0x7F

    private static let words: [String: Token] = [
        "mo": .weekday(0), "tu": .weekday(1), "we": .weekday(2), "th": .weekday(3), "fr": .weekday(4),
        "sa": .weekday(5), "su": .weekday(6), "ph": .holiday, "sh": .holiday, "off": .off, "closed": .off,
    ]

    private let tokens: [Token]
    private var position = 0

    /// The week's merged intervals for `text`, or nil when it is not a form we evaluate.
    static func week(of text: String) -> [[OpeningHours.Interval]]? {
        guard text.utf8.count <= OpeningHours.maxBytes, let tokens = tokens(of: text) else { return nil }
        var parser = OpeningHoursParser(tokens: tokens)
        return parser.parseWeek()
    }

    private init(tokens: [Token]) { self.tokens = tokens }

    // MARK: Tokens

    static func tokens(of text: String) -> [Token]? {
        let bytes = Array(text.utf8)
        var tokens: [Token] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                index += 1
                continue
            case UInt8(ascii: ";"): tokens.append(.semicolon)
            case UInt8(ascii: ","): tokens.append(.comma)
            case UInt8(ascii: "-"): tokens.append(.dash)
            case UInt8(ascii: ":"): tokens.append(.colon)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let (token, length) = number(at: index, in: bytes) else { return nil }
                tokens.append(token)
                index += length
                continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
                var end = index
                while end < bytes.count, isLetter(bytes[end]) { end += 1 }
                let word = String(decoding: bytes[index..<end], as: UTF8.self).lowercased()
                guard let token = words[word] else { return nil }
                tokens.append(token)
                index = end
                continue
            default:
                return nil
            }
            index += 1
        }
        return tokens
    }

    /// A time (`9:00`, `09:00`, up to `48:00`) or `24/7` at `start`, with its length in bytes.
    private static func number(at start: Int, in bytes: [UInt8]) -> (Token, Int)? {
        func digit(_ offset: Int) -> Int? {
            let index = start + offset
            guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
                return nil
            }
            return Int(bytes[index] - UInt8(ascii: "0"))
        }
        func byte(_ offset: Int) -> UInt8? { start + offset < bytes.count ? bytes[start + offset] : nil }
        guard let first = digit(0) else { return nil }
        var hours = first
        var length = 1
        if let second = digit(1) {
            hours = hours * 10 + second
            length = 2
        }
        if byte(length) == UInt8(ascii: ":") {
            guard let tens = digit(length + 1), let ones = digit(length + 2), digit(length + 3) == nil else {
                return nil
            }
            let minutes = tens * 10 + ones
            guard minutes < 60, hours * 60 + minutes <= 2880 else { return nil }
            return (.time(hours * 60 + minutes), length + 3)
        }
        if hours == 24, length == 2, byte(2) == UInt8(ascii: "/"), byte(3) == UInt8(ascii: "7"), digit(4) == nil {
            return (.always, 4)
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    // MARK: Rules

    private func peek(_ offset: Int = 0) -> Token? {
        position + offset < tokens.count ? tokens[position + offset] : nil
    }

    private mutating func parseWeek() -> [[OpeningHours.Interval]]? {
        var week = Array(repeating: [(start: Int, end: Int)](), count: 7)
        var rules = 0
        var additional = false
        while let token = peek() {
            // An empty rule, such as after a trailing `;`, changes nothing.
            if token == .semicolon {
                position += 1
                additional = false
                continue
            }
            rules += 1
            guard rules <= Self.maxRules, let rule = parseRule() else { return nil }
            Self.apply(rule, additional: additional, to: &week)
            guard let separator = peek() else { break }
            if separator == .semicolon {
                additional = false
            } else if separator == .comma, peek(1)?.startsSelector == true {
                additional = true
            } else {
                return nil
            }
            position += 1
        }
        guard rules > 0 else { return nil }
        return week.map(Self.merged)
    }

    private mutating func parseRule() -> Rule? {
        if peek() == .always {
            position += 1
            return .open(days: Self.everyDay, spans: [(0, 1440)])
        }
        var days: UInt8 = 0
        var holidays = false
        var groups = 0
        // Weekday and holiday items; a comma joins items of one group (their union), and a
        // group written straight after another (`SH Mo-Fr`) narrows it (an intersection).
        while peek()?.startsSelector == true {
            groups += 1
            while true {
                switch peek() {
                case .holiday:
                    holidays = true
                    position += 1
                case .weekday(let first):
                    position += 1
                    var last = first
                    if peek() == .dash, case .weekday(let end) = peek(1) {
                        last = end
                        position += 2
                    }
                    var day = first
                    while true {
                        days |= 1 << day
                        if day == last { break }
                        day = (day + 1) % 7
                    }
                default:
                    return nil
                }
                guard peek() == .comma, peek(1)?.startsSelector == true else { break }
                position += 1
            }
        }
        if groups > 0, peek() == .colon { position += 1 }

        let rule: Rule
        switch peek() {
        case .off:
            position += 1
            rule = .closed(days: groups > 0 ? days : Self.everyDay)
        case .time:
            guard let spans = parseSpans() else { return nil }
            rule = .open(days: groups > 0 ? days : Self.everyDay, spans: spans)
        default:
            guard groups > 0 else { return nil }
            rule = .open(days: days, spans: [(0, 1440)])
        }
        if holidays && (groups > 1 || days == 0) { return .skipped }
        guard groups <= 1 else { return nil }
        return rule
    }

    private mutating func parseSpans() -> [(start: Int, end: Int)]? {
        var spans: [(start: Int, end: Int)] = []
        while true {
            guard case .time(let start) = peek(), peek(1) == .dash, case .time(let end) = peek(2), start < 1440 else {
                return nil
            }
            position += 3
            // An end at or before the start is on the next day (`18:00-02:00`).
            spans.append((start, end > start ? end : end + 1440))
            guard spans.count <= Self.maxSpansPerRule else { return nil }
            guard peek() == .comma, case .time = peek(1) else { return spans }
            position += 1
        }
    }

    private static func apply(_ rule: Rule, additional: Bool, to week: inout [[(start: Int, end: Int)]]) {
        switch rule {
        case .skipped:
            return
        case .closed(let days):
            for day in 0..<7 where days & (1 << day) != 0 { week[day] = [] }
        case .open(let days, let spans):
            if !additional {
                for day in 0..<7 where days & (1 << day) != 0 { week[day] = [] }
            }
            for day in 0..<7 where days & (1 << day) != 0 {
                for span in spans {
                    week[day].append((span.start, min(span.end, 1440)))
                    if span.end > 1440 { week[(day + 1) % 7].append((0, span.end - 1440)) }
                }
            }
        }
    }

    /// Sorted, with overlapping and touching intervals joined.
    private static func merged(_ intervals: [(start: Int, end: Int)]) -> [OpeningHours.Interval] {
        var result: [OpeningHours.Interval] = []
        for interval in intervals.sorted(by: { $0.start < $1.start }) {
            if let last = result.last, interval.start <= Int(last.end) {
                result[result.count - 1].end = max(last.end, Int16(interval.end))
            } else {
                result.append(OpeningHours.Interval(start: Int16(interval.start), end: Int16(interval.end)))
            }
        }
        return result
    }
}
