import BurgerMapCore
import Foundation
import Testing

/// `OpeningHours` judged at fixed moments: 2024-06-03 is a Monday, so June 3–9 is one week.
@Suite("OpeningHours")
struct OpeningHoursTests {
    static let seoul = TimeZone(identifier: "Asia/Seoul")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// A moment given as UTC, `2024-03-31T01:00Z`.
    static func utc(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    /// A Seoul wall-clock time, `2024-06-07 23:30` (Seoul has no DST, so it is one moment).
    static func seoul(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = seoul
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    @Test(
        "weekday rules, spans, past midnight and later rules, read in Seoul",
        arguments: [
            ("24/7", "2024-06-05 03:17", true),
            ("off", "2024-06-05 12:00", false), ("closed", "2024-06-08 12:00", false),
            ("Mo-Fr 11:00-22:00; Sa,Su 12:00-23:00", "2024-06-03 10:59", false),
            ("Mo-Fr 11:00-22:00; Sa,Su 12:00-23:00", "2024-06-03 11:00", true),
            ("Mo-Fr 11:00-22:00; Sa,Su 12:00-23:00", "2024-06-03 21:59", true),
            ("Mo-Fr 11:00-22:00; Sa,Su 12:00-23:00", "2024-06-03 22:00", false),
            ("Mo-Fr 11:00-22:00; Sa,Su 12:00-23:00", "2024-06-08 11:30", false),
            ("Mo-Fr 11:00-22:00; Sa,Su 12:00-23:00", "2024-06-09 22:30", true),
            ("Mo,We-Fr 10:00-20:00", "2024-06-03 12:00", true), ("Mo,We-Fr 10:00-20:00", "2024-06-04 12:00", false),
            ("Mo,We-Fr 10:00-20:00", "2024-06-06 12:00", true), ("Mo,We-Fr 10:00-20:00", "2024-06-08 12:00", false),
            ("Fr-Mo 10:00-20:00", "2024-06-09 12:00", true), ("Fr-Mo 10:00-20:00", "2024-06-10 12:00", true),
            ("Fr-Mo 10:00-20:00", "2024-06-04 12:00", false), ("Fr-Mo 10:00-20:00", "2024-06-06 12:00", false),
            ("Mo-Fr 11:00-14:00,17:00-22:00", "2024-06-04 13:59", true),
            ("Mo-Fr 11:00-14:00,17:00-22:00", "2024-06-04 15:00", false),
            ("Mo-Fr 11:00-14:00,17:00-22:00", "2024-06-04 17:00", true),
            ("Mo-Fr 08:00-12:00, 13:00-17:30", "2024-06-05 12:30", false),
            ("Mo-Fr 08:00-12:00, 13:00-17:30", "2024-06-05 17:29", true),
            ("Mo-Fr 08:00-12:00, 13:00-17:30", "2024-06-05 17:30", false),
            // The tail of a span past midnight is open on the next morning, and only then.
            ("Fr,Sa 18:00-02:00", "2024-06-08 01:00", true), ("Fr,Sa 18:00-02:00", "2024-06-09 01:59", true),
            ("Fr,Sa 18:00-02:00", "2024-06-09 02:00", false), ("Fr,Sa 18:00-02:00", "2024-06-07 01:00", false),
            ("Fr,Sa 18:00-02:00", "2024-06-08 17:00", false), ("Fr,Sa 18:00-02:00", "2024-06-08 18:00", true),
            ("Su 22:00-02:00", "2024-06-10 01:00", true), ("Su 22:00-02:00", "2024-06-03 01:00", true),
            ("Su 22:00-02:00", "2024-06-04 01:00", false),
            ("Su 20:00-26:00", "2024-06-10 01:59", true), ("Su 20:00-26:00", "2024-06-10 02:00", false),
            ("Fr 18:00-24:00", "2024-06-07 23:59", true), ("Fr 18:00-24:00", "2024-06-08 00:00", false),
            ("22:00-00:00", "2024-06-05 23:00", true), ("22:00-00:00", "2024-06-05 21:00", false),
            ("Mo-Su 00:00-24:00", "2024-06-06 00:00", true),
            ("10:00-22:00", "2024-06-08 10:00", true), ("10:00-22:00", "2024-06-04 22:00", false),
            ("Mo-Su 10:00-22:00", "2024-06-09 21:00", true),
            ("Sa", "2024-06-08 03:00", true), ("Sa", "2024-06-07 03:00", false),
            ("mo-fr 9:00-17:00", "2024-06-03 09:30", true), ("Mo-Fr: 10:00-20:00", "2024-06-05 19:00", true),
            ("Mo-Fr 10:00-20:00 ; Sa 10:00-14:00 ;", "2024-06-08 13:00", true),
            // Later rules replace the days they name, the previous night's tail included.
            ("Mo-Fr 11:00-22:00; Tu off", "2024-06-04 12:00", false),
            ("Mo-Fr 11:00-22:00; Tu off", "2024-06-05 12:00", true),
            ("Mo-Fr 11:00-22:00; We 14:00-16:00", "2024-06-05 12:00", false),
            ("Mo-Fr 10:00-20:00; 12:00-14:00", "2024-06-03 11:00", false),
            ("Fr 18:00-02:00; Sa 12:00-20:00", "2024-06-08 01:00", false),
            ("Mo-Su 10:00-02:00; Su off", "2024-06-09 01:00", false),
            ("Mo-Su 10:00-02:00; Su off", "2024-06-10 01:00", true),
            // Additional rules add to the days they name.
            ("Fr 18:00-02:00, Sa 12:00-20:00", "2024-06-08 01:00", true),
            ("Mo-Fr 10:00-20:00, Sa 10:00-14:00", "2024-06-08 12:00", true),
            ("Mo-Fr 10:00-20:00, Sa 10:00-14:00", "2024-06-03 19:00", true),
            ("Mo-Fr 10:00-14:00, We 16:00-18:00", "2024-06-05 13:00", true),
            ("Mo-Sa 10:00-20:00, Sa off", "2024-06-08 12:00", false),
            // Holidays are not evaluated: their rules are skipped.
            ("Mo-Fr 11:00-22:00; PH off", "2024-06-03 12:00", true),
            ("PH 10:00-14:00; Mo 09:00-10:00", "2024-06-03 12:00", false),
            ("Sa,PH 10:00-14:00", "2024-06-08 12:00", true), ("Sa,PH 10:00-14:00", "2024-06-03 12:00", false),
            ("Mo-Fr 09:00-18:00; SH Mo-Fr 10:00-12:00", "2024-06-03 17:00", true),
        ])
    func seoulTable(text: String, local: String, open: Bool) throws {
        let hours = try #require(OpeningHours(text), "parses: \(text)")
        #expect(hours.isOpen(at: Self.seoul(local), in: Self.seoul) == open, "\(text) at \(local)")
    }

    @Test("Berlin: a spring-forward gap skips the hours inside it; a fall-back repeat is open twice")
    func berlinDaylightSaving() throws {
        // 2024-03-31: 02:00 CET becomes 03:00 CEST at 01:00Z.
        let gap = try #require(OpeningHours("Su 02:00-03:00"))
        let start = Self.utc("2024-03-30T22:00:00Z")
        let minutes = (0..<300).map { start.addingTimeInterval(Double($0) * 60) }
        #expect(minutes.filter { gap.isOpen(at: $0, in: Self.berlin) }.isEmpty)
        let after = try #require(OpeningHours("Su 03:00-04:00"))
        #expect(!after.isOpen(at: Self.utc("2024-03-31T00:59:00Z"), in: Self.berlin))
        #expect(after.isOpen(at: Self.utc("2024-03-31T01:00:00Z"), in: Self.berlin))
        // A Saturday-night tail to 03:00 closes at 01:00Z that night, an hour early in real time.
        let night = try #require(OpeningHours("Sa 22:00-03:00"))
        #expect(night.isOpen(at: Self.utc("2024-03-31T00:59:00Z"), in: Self.berlin))
        #expect(!night.isOpen(at: Self.utc("2024-03-31T01:00:00Z"), in: Self.berlin))

        // 2024-10-27: 03:00 CEST becomes 02:00 CET at 01:00Z, so 02:00–03:00 is lived twice.
        let repeated = try #require(OpeningHours("Su 02:00-03:00"))
        let expected: [(String, Bool)] = [
            ("2024-10-26T23:59:00Z", false), ("2024-10-27T00:00:00Z", true), ("2024-10-27T00:59:00Z", true),
            ("2024-10-27T01:00:00Z", true), ("2024-10-27T01:59:00Z", true), ("2024-10-27T02:00:00Z", false),
        ]
        for (moment, open) in expected {
            #expect(repeated.isOpen(at: Self.utc(moment), in: Self.berlin) == open, "\(moment)")
        }
    }

    @Test("New York: wall-clock hours across both DST changes, and the zone's day, not UTC's")
    func newYork() throws {
        // 2024-03-10: 02:00 EST becomes 03:00 EDT at 07:00Z.
        let night = try #require(OpeningHours("Sa 20:00-02:30"))
        #expect(night.isOpen(at: Self.utc("2024-03-10T06:59:00Z"), in: Self.newYork))
        #expect(!night.isOpen(at: Self.utc("2024-03-10T07:00:00Z"), in: Self.newYork))
        // 2024-11-03: 02:00 EDT becomes 01:00 EST at 06:00Z.
        let early = try #require(OpeningHours("Su 01:00-02:00"))
        #expect(early.isOpen(at: Self.utc("2024-11-03T05:00:00Z"), in: Self.newYork))
        #expect(early.isOpen(at: Self.utc("2024-11-03T06:30:00Z"), in: Self.newYork))
        #expect(!early.isOpen(at: Self.utc("2024-11-03T07:00:00Z"), in: Self.newYork))
        // Tuesday 02:30Z is Monday 22:30 in New York.
        let weekdays = try #require(OpeningHours("Mo-Fr 11:00-22:00"))
        #expect(weekdays.isOpen(at: Self.utc("2024-06-04T01:30:00Z"), in: Self.newYork))
        #expect(!weekdays.isOpen(at: Self.utc("2024-06-04T02:30:00Z"), in: Self.newYork))
        // One moment, two zones: Monday 12:00 in Seoul, Sunday 23:00 in New York.
        let monday = try #require(OpeningHours("Mo 11:00-14:00"))
        #expect(monday.isOpen(at: Self.utc("2024-06-03T03:00:00Z"), in: Self.seoul))
        #expect(!monday.isOpen(at: Self.utc("2024-06-03T03:00:00Z"), in: Self.newYork))
    }

    @Test("the weekday and minute match Foundation's Calendar at random moments in many zones")
    func matchesCalendar() throws {
        let zones = [
            "Asia/Seoul", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu",
            "Pacific/Chatham", "America/St_Johns", "Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC",
        ].map { TimeZone(identifier: $0)! }
        let days = ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"]
        var random = SeededGenerator(seed: 2024)
        for _ in 0..<3000 {
            let zone = zones.randomElement(using: &random)!
            // 1950–2100, on whole seconds.
            let moment = Date(
                timeIntervalSince1970: Double(Int.random(in: -631_152_000...4_102_444_800, using: &random)))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let parts = calendar.dateComponents([.weekday, .hour, .minute], from: moment)
            let minute = parts.hour! * 60 + parts.minute!
            func clock(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
            let day = days[parts.weekday! - 1]
            let exact = try #require(OpeningHours("\(day) \(clock(minute))-\(clock(minute + 1))"))
            #expect(exact.isOpen(at: moment, in: zone), "\(moment) in \(zone.identifier)")
            let otherDays = try #require(OpeningHours("\(day) off; \(days[parts.weekday! % 7]) 00:00-24:00"))
            #expect(!otherDays.isOpen(at: moment, in: zone), "\(moment) in \(zone.identifier)")
        }
    }

    @Test("equal hours compare equal however they are written")
    func equality() {
        #expect(OpeningHours("Mo-Su 10:00-22:00") == OpeningHours("10:00-22:00"))
        #expect(OpeningHours("Mo-Fr 10:00-12:00,12:00-14:00") == OpeningHours("Mo,Tu,We,Th,Fr 10:00-14:00"))
        #expect(OpeningHours("24/7") == OpeningHours("00:00-24:00"))
        #expect(OpeningHours("Mo 10:00-12:00") != OpeningHours("Tu 10:00-12:00"))
    }

    @Test("moments out of range are never open, and never trap")
    func extremeMoments() throws {
        let always = try #require(OpeningHours("24/7"))
        #expect(always.isOpen(at: .distantFuture, in: Self.berlin))
        #expect(always.isOpen(at: .distantPast, in: Self.berlin))
        #expect(!always.isOpen(at: Date(timeIntervalSince1970: .infinity), in: Self.berlin))
        #expect(!always.isOpen(at: Date(timeIntervalSince1970: -.infinity), in: Self.berlin))
        #expect(!always.isOpen(at: Date(timeIntervalSince1970: .nan), in: Self.berlin))
    }
}
