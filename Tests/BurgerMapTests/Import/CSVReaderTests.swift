import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("CSV reader")
struct CSVReaderTests {
    func records(_ text: String, chunkSize: Int = 1 << 20) throws -> [(line: Int, fields: [String], problem: String?)] {
        let environment = try TestEnvironment()
        let url = try environment.file("test.csv", text)
        var reader = CSVReader(source: try ByteSource(url: url, chunkSize: chunkSize))
        var record = CSVRecord()
        var result: [(Int, [String], String?)] = []
        while try reader.next(into: &record) {
            result.append((record.line, (0..<record.count).map { record.field($0)! }, record.problem))
        }
        return result
    }

    @Test(
        "RFC 4180 quoting: commas, doubled quotes and line breaks inside quotes; CRLF; BOM", arguments: [1, 3, 1 << 20])
    func quoting(chunkSize: Int) throws {
        let text = "\u{FEFF}name,note\r\n\"Bob's, \"\"Best\"\"\",\"two\r\nlines\"\r\nplain,\r\n,last\n"
        let parsed = try records(text, chunkSize: chunkSize)
        #expect(
            parsed.map(\.fields) == [
                ["name", "note"], ["Bob's, \"Best\"", "two\r\nlines"], ["plain", ""], ["", "last"],
            ])
        #expect(parsed.map(\.line) == [1, 2, 4, 5])
        #expect(parsed.allSatisfy { $0.problem == nil })
    }

    @Test("the start of a byte-order mark followed by text, or by the end, is text (found by fuzzing)")
    func partialByteOrderMark() throws {
        for chunkSize in [1, 2, 1 << 20] {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("bom-\(UUID().uuidString).csv")
            defer { try? FileManager.default.removeItem(at: url) }
            for (bytes, fields) in [
                ([0xEF, 0x00] as [UInt8], [[0xEF, 0x00]] as [[UInt8]]),
                ([0xEF, 0xBB, 0x41, 0x2C, 0x42], [[0xEF, 0xBB, 0x41], [0x42]]),
                ([0xEF, 0xBB], [[0xEF, 0xBB]]), ([0xEF, 0xBB, 0xBF, 0x41], [[0x41]]),
            ] {
                try Data(bytes).write(to: url)
                var reader = CSVReader(source: try ByteSource(url: url, chunkSize: chunkSize))
                var record = CSVRecord()
                var read: [[UInt8]] = []
                while try reader.next(into: &record) {
                    var start = 0
                    for end in record.fieldEnds {
                        read.append(Array(record.bytes[start..<end]))
                        start = end
                    }
                }
                #expect(read == fields, "\(bytes) in chunks of \(chunkSize)")
            }
        }
    }

    @Test("a quote that never closes is reported, with the line where the record starts")
    func unclosedQuote() throws {
        let parsed = try records("a,b\n1,\"never\nclosed\n")
        #expect(parsed.count == 2)
        #expect(parsed[1].line == 2)
        #expect(parsed[1].problem == "quoted field is never closed")
    }

    @Test("the last record needs no line end")
    func noFinalNewline() throws {
        #expect(try records("a,b\n1,2").map(\.fields) == [["a", "b"], ["1", "2"]])
    }
}
