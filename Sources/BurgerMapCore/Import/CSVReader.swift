import Foundation

/// One CSV record: its fields as bytes, and the line of the file where it starts.
package struct CSVRecord {
    /// The 1-based line of the file where the record starts (records may span lines).
    package var line: Int = 0
    fileprivate(set) var bytes: [UInt8] = []
    fileprivate(set) var fieldEnds: [Int] = []
    /// Why the record is malformed, if it is (an unclosed quote, an over-long record).
    fileprivate(set) var problem: String?

    package var count: Int { fieldEnds.count }

    /// The field at `index` as text, or `nil` past the last field.
    package func field(_ index: Int) -> String? {
        guard index >= 0, index < fieldEnds.count else { return nil }
        let start = index == 0 ? 0 : fieldEnds[index - 1]
        return bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<fieldEnds[index]]), as: UTF8.self)
        }
    }

    fileprivate mutating func reset(line: Int) {
        self.line = line
        bytes.removeAll(keepingCapacity: true)
        fieldEnds.removeAll(keepingCapacity: true)
        problem = nil
    }
}

/// A streaming RFC 4180 reader: quoted fields with commas, doubled quotes and line breaks;
/// CRLF or LF line ends; a UTF-8 byte-order mark is ignored.
///
/// Written here rather than taken from a package: the CSV packages on the mirror either load the
/// whole file (SwiftCSV) or decode it one Unicode scalar at a time without reporting the line a
/// record starts on (CSV.swift); the importer needs line numbers for its reports, flat memory,
/// and the speed of a byte loop (it reads hundreds of thousands of rows a second).
package struct CSVReader {
    private var source: ByteSource
    private var chunk: [UInt8] = []
    private var position = 0
    private var line = 1
    /// How many bytes of a leading UTF-8 byte-order mark have been skipped (3 when done).
    private var byteOrderMarkSeen = 0
    /// Records longer than this are reported as malformed instead of buffered.
    package static let maximumRecordBytes = 1 << 20
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    package init(source: ByteSource) {
        self.source = source
    }

    package var bytesRead: Int64 { source.bytesRead }
    package var size: Int64? { source.size }

    private enum State {
        case fieldStart, unquoted, quoted, quoteInQuoted
    }

    /// Where the run of bytes that need no decision ends, from `start`: in an unquoted field
    /// every byte but a comma or a line feed, in a quoted one every byte but a quote (line
    /// feeds included, counted for the line numbers).
    private static func ordinaryRun(in chunk: [UInt8], from start: Int, quoted: Bool) -> (end: Int, newlines: Int) {
        chunk.withUnsafeBufferPointer { bytes in
            var index = start
            var newlines = 0
            if quoted {
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == 0x22 { break }
                    if byte == 0x0A { newlines += 1 }
                    index += 1
                }
            } else {
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == 0x2C || byte == 0x0A { break }
                    index += 1
                }
            }
            return (index, newlines)
        }
    }

    /// Reads the next record into `record`; returns `false` at the end of the file.
    package mutating func next(into record: inout CSVRecord) throws -> Bool {
        record.reset(line: line)
        var state = State.fieldStart
        var sawAnything = false
        var overlong = false
        var fieldStart = 0

        func endField(_ record: inout CSVRecord) {
            record.fieldEnds.append(record.bytes.count)
            fieldStart = record.bytes.count
        }

        while true {
            if position == chunk.count {
                guard let next = try source.nextChunk() else { break }
                chunk = next
                position = 0
                continue
            }
            // Inside a field, runs of ordinary bytes are copied at once. Appending byte by byte,
            // the reader took 17% of the importer's CPU samples in a profile of a PostgreSQL
            // import of 1,000,000 rows (`perf record`); with runs, 7%, and half the samples.
            if byteOrderMarkSeen == 3, !overlong, state == .unquoted || state == .quoted {
                let (end, newlines) = Self.ordinaryRun(in: chunk, from: position, quoted: state == .quoted)
                if end > position {
                    record.bytes.append(contentsOf: chunk[position..<end])
                    line += newlines
                    position = end
                    if record.bytes.count > Self.maximumRecordBytes {
                        overlong = true
                        record.problem = "record longer than \(Self.maximumRecordBytes) bytes"
                        record.bytes.removeAll(keepingCapacity: true)
                        record.fieldEnds.removeAll(keepingCapacity: true)
                        fieldStart = 0
                    }
                    continue
                }
            }
            let byte = chunk[position]
            position += 1
            if byteOrderMarkSeen < 3 {
                if byte == Self.byteOrderMark[byteOrderMarkSeen] {
                    byteOrderMarkSeen += 1
                    continue
                }
                // Only the start of a mark: those bytes were text after all (found by fuzzing).
                if byteOrderMarkSeen > 0 {
                    record.bytes.append(contentsOf: Self.byteOrderMark[0..<byteOrderMarkSeen])
                    sawAnything = true
                    state = .unquoted
                }
                byteOrderMarkSeen = 3
            }
            sawAnything = true
            if byte == 0x0A { line += 1 }
            switch state {
            case .fieldStart, .unquoted:
                switch byte {
                case 0x2C:  // ,
                    endField(&record)
                    state = .fieldStart
                case 0x0A:
                    // Drop the CR of a CRLF line end.
                    if record.bytes.count > fieldStart, record.bytes.last == 0x0D, state == .unquoted {
                        record.bytes.removeLast()
                    }
                    endField(&record)
                    return true
                case 0x22 where state == .fieldStart:
                    state = .quoted
                default:
                    state = .unquoted
                    if !overlong { record.bytes.append(byte) }
                }
            case .quoted:
                if byte == 0x22 {
                    state = .quoteInQuoted
                } else if !overlong {
                    record.bytes.append(byte)
                }
            case .quoteInQuoted:
                switch byte {
                case 0x22:  // a doubled quote stands for one quote
                    if !overlong { record.bytes.append(byte) }
                    state = .quoted
                case 0x2C:
                    endField(&record)
                    state = .fieldStart
                case 0x0A:
                    endField(&record)
                    return true
                case 0x0D:
                    break
                default:  // text after a closing quote: kept as written
                    if !overlong { record.bytes.append(byte) }
                    state = .unquoted
                }
            }
            if !overlong, record.bytes.count > Self.maximumRecordBytes {
                overlong = true
                record.problem = "record longer than \(Self.maximumRecordBytes) bytes"
                record.bytes.removeAll(keepingCapacity: true)
                record.fieldEnds.removeAll(keepingCapacity: true)
                fieldStart = 0
            }
        }
        if (1..<3).contains(byteOrderMarkSeen) {
            // The file ends inside what began like a mark: it was text.
            record.bytes.append(contentsOf: Self.byteOrderMark[0..<byteOrderMarkSeen])
            byteOrderMarkSeen = 3
            sawAnything = true
            state = .unquoted
        }
        guard sawAnything else { return false }
        if state == .quoted {
            record.problem = "quoted field is never closed"
        }
        if record.bytes.last == 0x0D, state == .unquoted { record.bytes.removeLast() }
        endField(&record)
        return true
    }
}
