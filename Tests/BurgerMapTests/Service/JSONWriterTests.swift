import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The hand-written JSON output that every list uses, checked against Foundation's parser.
@Suite("JSON writer")
struct JSONWriterTests {
    /// Parses `bytes` as a one-element array and answers the element.
    func parsed(_ bytes: [UInt8]) throws -> Any {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [Any])
        return try #require(array.first)
    }

    func written(_ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter()
        writer.array { write(&$0) }
        return writer.bytes
    }

    @Test("strings round-trip whatever they hold and wherever the escapes fall")
    func stringsRoundTrip() throws {
        var random = SeededGenerator(seed: 11)
        let pieces = [
            "a", "Burger", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "/", "é", "한", "🍔",
            "👨‍👩‍👧", "\u{7F}", "~",
        ]
        var texts = ["", "plain ascii text that is long enough for several words", String(repeating: "\"", count: 17)]
        for _ in 0..<400 {
            let count = Int.random(in: 0...40, using: &random)
            texts.append((0..<count).map { _ in pieces.randomElement(using: &random)! }.joined())
        }
        for text in texts {
            let bytes = written { $0.value(text) }
            #expect(try parsed(bytes) as? String == text, "\(text.debugDescription)")
            // Nothing below 0x20 is left raw.
            #expect(!bytes.contains { $0 < 0x20 })
        }
        #expect(try parsed(written { $0.value(nil as String?) }) is NSNull)
    }

    @Test("digits written in place: decimal and hex, zero-padded, as String would write them")
    func digitsInPlace() {
        var random = SeededGenerator(seed: 16)
        for _ in 0..<200 {
            let number = UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64.random(in: 0...63, using: &random)
            var decimal: [UInt8] = []
            decimal.appendDecimal(number, minimumWidth: 3)
            let plain = String(number)
            #expect(
                String(decoding: decimal, as: UTF8.self) == String(repeating: "0", count: max(0, 3 - plain.count))
                    + plain)
            var hex: [UInt8] = []
            hex.appendHex(number, digits: 16)
            let radix = String(number, radix: 16)
            #expect(String(decoding: hex, as: UTF8.self) == String(repeating: "0", count: 16 - radix.count) + radix)
        }
        var escape = Array("%".utf8)
        escape.appendHex(0xE9, digits: 2, uppercase: true)
        escape.appendHex(0x1F, digits: 4)
        #expect(String(decoding: escape, as: UTF8.self) == "%E9001f")
    }

    @Test("integers, rounded decimals and moments read back as written")
    func numbersAndTimes() throws {
        for number in [0, 7, -7, 1_000_000, Int64.max, Int64.min + 1] {
            #expect(try parsed(written { $0.value(number) }) as? NSNumber == NSNumber(value: number))
        }
        let decimals: [(Double, String)] = [
            (1234.56789, "1234.568"), (0.0004, "0"), (0.5, "0.5"), (12, "12"), (-3.25, "-3.25"), (99.9996, "100"),
            (0.001, "0.001"), (0.0105, "0.011"),
        ]
        for (number, text) in decimals {
            #expect(String(decoding: written { $0.value(number, decimals: 3) }, as: UTF8.self) == "[\(text)]")
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // Expected texts computed apart (Python's datetime), not by the code under test.
        let moments: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000Z"), (1, "1970-01-01T00:00:00.001Z"), (999, "1970-01-01T00:00:00.999Z"),
            (1_795_256_384_815, "2026-11-21T10:19:44.815Z"), (-1, "1969-12-31T23:59:59.999Z"),
            (-86_400_001, "1969-12-30T23:59:59.999Z"), (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ]
        for (milliseconds, expected) in moments {
            let time = Timestamp(milliseconds: milliseconds)
            let text = try #require(try parsed(written { $0.value(time) }) as? String)
            #expect(text == expected)
            let date = try #require(formatter.date(from: text), "\(text)")
            #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == milliseconds)
        }
    }
}
