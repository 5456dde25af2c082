import Foundation

@testable import BurgerMap
@testable import BurgerMapCore

/// The CSV importer: `CSVReader` on a real file, then `CSVPlaceRowReader` and row validation.
///
/// Input: one byte choosing the read chunk size (0: the whole file, else that many bytes), then the file.
///
/// Invariants: the records do not depend on the chunk size; records start on increasing lines;
/// a file without quotes reads exactly as splitting it on line feeds and commas does; the
/// records, written again with every field quoted, read back the same; and every place the
/// importer keeps passes its validation rules.
enum CSVTarget {
    struct Record: Equatable {
        var line: Int
        var fields: [[UInt8]]
        var problem: String?
    }

    static func run(_ data: UnsafeRawBufferPointer) {
        guard let selector = data.first else { return }
        let file = Array(data.dropFirst())
        let url = ScratchFile.write(file[...])
        let whole = records(url, chunkSize: chunkSize(0, fileSize: file.count))
        require(
            records(url, chunkSize: chunkSize(selector, fileSize: file.count)) == whole,
            "records depend on the chunk size")
        checkLines(whole, file: file)
        checkUnquoted(whole, file: file)
        checkRoundTrip(whole)

        guard
            var rows = try? CSVPlaceRowReader(
                source: ByteSource(url: url, chunkSize: chunkSize(selector, fileSize: file.count)), path: "")
        else { return }
        while let (position, item) = try! rows.next() {
            require(position >= 1, "line \(position)")
            checkImported(item)
        }
    }

    static func records(_ url: URL, chunkSize: Int) -> [Record] {
        var reader = CSVReader(source: try! ByteSource(url: url, chunkSize: chunkSize))
        var record = CSVRecord()
        var result: [Record] = []
        while try! reader.next(into: &record) {
            var fields: [[UInt8]] = []
            var start = 0
            for end in record.fieldEnds {
                fields.append(Array(record.bytes[start..<end]))
                start = end
            }
            result.append(Record(line: record.line, fields: fields, problem: record.problem))
        }
        return result
    }

    static func checkLines(_ records: [Record], file: [UInt8]) {
        let lines = file.count { $0 == 0x0A } + 1
        var previous = 0
        for record in records {
            require(record.line > previous && record.line <= lines, "record on line \(record.line) after \(previous)")
            previous = record.line
        }
        if let first = records.first { require(first.line == 1, "the first record starts on line \(first.line)") }
    }

    /// Without quotes, CSV is lines split on commas: a reference reader in four lines.
    static func checkUnquoted(_ records: [Record], file: [UInt8]) {
        guard !file.contains(0x22) else { return }
        var text = file[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        var lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        let expected = lines.map { line in
            (line.last == 0x0D ? line.dropLast() : line).split(separator: 0x2C, omittingEmptySubsequences: false)
                .map { Array($0) }
        }
        require(records.map(\.fields) == expected, "unquoted CSV read differently from its lines and commas")
    }

    /// Every field quoted (quotes doubled), records ended by CRLF: reads back to the same fields.
    static func checkRoundTrip(_ read: [Record]) {
        let complete = read.filter { $0.problem == nil }
        guard !complete.isEmpty else { return }
        var file: [UInt8] = []
        for record in complete {
            for (index, field) in record.fields.enumerated() {
                if index > 0 { file.append(0x2C) }
                file.append(0x22)
                for byte in field {
                    if byte == 0x22 { file.append(0x22) }
                    file.append(byte)
                }
                file.append(0x22)
            }
            file += [0x0D, 0x0A]
        }
        let again = records(ScratchFile.write(file[...]), chunkSize: file.count)
        require(again.map(\.fields) == complete.map(\.fields), "quoted records read back differently")
    }
}
