import BurgerMapCore
import Foundation
import Testing

/// What `OpeningHours` refuses, its bounds, and random text.
@Suite("OpeningHours syntax")
struct OpeningHoursSyntaxTests {
    @Test(
        "forms we do not evaluate are refused",
        arguments: [
            "", " ", ";", ";;", "Jan-Mar 10:00-20:00", "Mo-Fr 10:00-20:00; Dec 25 off", "week 1-53 Mo 10:00-12:00",
            "2024 Mo 10:00-12:00", "Mo[1] 10:00-12:00", "sunrise-sunset", "Mo 10:00-sunset", "easter off", "17:00+",
            "Mo-Fr 17:00+", "Mo 10:00-12:00 \"by appointment\"", "\"closed\"", "Mo-Fr 10:00-20:00 || \"call us\"",
            "Mo-Fr 10:00-20:00 || Sa 10:00-12:00", "Mo-Fr 10:00-20:00 open", "unknown", "Mo-Fr 10:00-12:00 off",
            "Mo-Fr 25:00-26:00", "Mo 24:00-26:00", "Mo 10:60-11:00", "Mo 10:00-49:00", "Mo 100:00-101:00",
            "Mo 10:000-11:00", "Mo 10:0-11:00", "Mo Fr 10:00-12:00", "Mo-Fr 10:00-20:00,", "Mo-Fr 10:00–20:00",
            "Mo-Fr 10-20", "10:00", "Mo 10:00-", "24/7 Mo", "24/7 closed", "24/77", "Mo-Fr 10:00-20:00/30",
            "PH +1 day", "Mo-Fr 10:00-20:00;, Sa 10:00-12:00", "Mo- 10:00-12:00", "Mo 10:00-12:00\n",
            "Montag 10:00-12:00", "Mo,, Tu 10:00-12:00", "Mo-Fr 10:00-12:00, off",
        ])
    func refused(text: String) {
        #expect(OpeningHours(text) == nil, "\(text.debugDescription)")
    }

    @Test("at most 255 UTF-8 bytes, 32 rules and 16 spans in a rule")
    func bounds() {
        let rule = "10:00-11:00"
        #expect(OpeningHours(rule + String(repeating: " ", count: 255 - rule.utf8.count)) != nil)
        #expect(OpeningHours(rule + String(repeating: " ", count: 256 - rule.utf8.count)) == nil)
        #expect(OpeningHours(Array(repeating: "Mo", count: 32).joined(separator: ";")) != nil)
        #expect(OpeningHours(Array(repeating: "Mo", count: 33).joined(separator: ";")) == nil)
        func spans(_ count: Int) -> String {
            (0..<count).map { String(format: "%02d:00-%02d:30", $0, $0) }.joined(separator: ",")
        }
        #expect(OpeningHours(spans(16)) != nil)
        #expect(OpeningHours(spans(17)) == nil)
    }

    @Test("random text never traps, and the generator reaches both answers")
    func randomText() {
        let pieces = [
            "Mo", "Tu", "we", "Fr", "Su", "PH", "SH", "off", "closed", "24/7", "24", "/", "7", "10", "10:00", "26:00",
            "48:00", "49:00", "9:5", ":", "-", ",", ";", " ", "||", "+", "\"", "Jan", "week", "sunrise", "é", "–", "0",
            "\u{0}", "Mo-Fr", "18:00-02:00", "x", "[", "]",
        ]
        var random = SeededGenerator(seed: 7)
        let zone = TimeZone(identifier: "Asia/Seoul")!
        var parsed = 0
        var open = 0
        let total = 20_000
        for _ in 0..<total {
            var text = ""
            for _ in 0..<Int.random(in: 1...12, using: &random) { text += pieces.randomElement(using: &random)! }
            if Bool.random(using: &random) {
                let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
                text = String(decoding: bytes, as: UTF8.self)
            }
            guard let hours = OpeningHours(text) else { continue }
            parsed += 1
            let moment = Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &random)))
            if hours.isOpen(at: moment, in: zone) { open += 1 }
        }
        #expect(parsed > 0 && parsed < total)
        #expect(open > 0 && open < parsed)
    }
}
