/// The JSON a request body must be, checked before Foundation's decoder reads it, for what that
/// decoder lets through: a trailing comma (`{"a": 1,}`), a key given twice (Foundation keeps the
/// first, a proxy or another reader may keep the last, so the two would act on different
/// requests), and control characters inside strings written as escapes (`"a\u0000b"`: a NUL
/// cut the text in some comparisons, so that `mallory@example.com\u0000a` logged in as
/// `mallory@example.com` with a fresh throttle key).
///
/// Written here because no package of the mirror checks JSON strictly; it follows RFC 8259's
/// grammar and is tested against Python's `json` module's verdicts on the same documents
/// (`StrictJSONTests`). Line breaks and tabs (`\n`, `\r`, `\t`) stay allowed in strings: prose
/// holds them, and the text rules refuse them where a field is one line.
enum StrictJSON {
    /// What is wrong with a document, the first thing found.
    enum Finding: Equatable {
        /// Not JSON as RFC 8259 writes it (a trailing comma, a stray byte, too deep).
        case syntax
        /// A key given twice in one object.
        case duplicateKey(String)
        /// Strings holding a control character other than a line break or a tab: the paths of
        /// their values (`email`, `names.ko`, `items.2`), in document order, each once.
        case controlCharacters(fields: [String])
    }

    /// Objects and arrays nest at most this deep (Foundation's own limit is 512).
    static let maximumDepth = 128

    /// The first thing wrong with `bytes`, or `nil` when it is strict JSON.
    static func check(_ bytes: some Collection<UInt8>) -> Finding? {
        let array = Array(bytes)
        var scanner = Scanner(bytes: array)
        do {
            scanner.skipWhitespace()
            try scanner.value(path: [], depth: 0)
            scanner.skipWhitespace()
            guard scanner.index == array.count else { return .syntax }
            return scanner.controlFields.isEmpty ? nil : .controlCharacters(fields: scanner.controlFields)
        } catch let finding as FindingError {
            return finding.finding
        } catch {
            return .syntax
        }
    }

    private struct FindingError: Error {
        let finding: Finding
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// The paths of the strings with control characters met so far.
        var controlFields: [String] = []

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            guard current == byte else { throw FindingError(finding: .syntax) }
            index += 1
        }

        mutating func literal(_ text: String) throws {
            for byte in text.utf8 { try expect(byte) }
        }

        mutating func value(path: [String], depth: Int) throws {
            guard depth <= StrictJSON.maximumDepth, let byte = current else { throw FindingError(finding: .syntax) }
            switch byte {
            case UInt8(ascii: "{"): try object(path: path, depth: depth + 1)
            case UInt8(ascii: "["): try array(path: path, depth: depth + 1)
            case UInt8(ascii: "\""): _ = try string(path: path)
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: try number()
            }
        }

        mutating func object(path: [String], depth: Int) throws {
            try expect(UInt8(ascii: "{"))
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return
            }
            var keys: Set<String> = []
            while true {
                skipWhitespace()
                // A key is a name, not a value: the service reads only plain keys, and an unknown
                // one is ignored whatever it holds.
                let key = try string(path: path, checkingControls: false)
                guard keys.insert(key).inserted else {
                    throw FindingError(finding: .duplicateKey((path + [key]).joined(separator: ".")))
                }
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                try value(path: path + [key], depth: depth)
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect(UInt8(ascii: "}"))
                return
            }
        }

        mutating func array(path: [String], depth: Int) throws {
            try expect(UInt8(ascii: "["))
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return
            }
            var position = 0
            while true {
                skipWhitespace()
                try value(path: path + [String(position)], depth: depth)
                position += 1
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect(UInt8(ascii: "]"))
                return
            }
        }

        /// A string's text (escapes decoded), refusing control characters but line breaks and tabs.
        mutating func string(path: [String], checkingControls: Bool = true) throws -> String {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() throws {
                guard !raw.isEmpty else { return }
                guard let text = String(validating: raw, as: UTF8.self) else { throw FindingError(finding: .syntax) }
                scalars.append(contentsOf: text.unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
            func isRefused(_ scalar: Unicode.Scalar) -> Bool {
                let value = scalar.value
                let isControl = value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value)
                return isControl && value != 0x0A && value != 0x0D && value != 0x09
            }
            while true {
                guard let byte = current else { throw FindingError(finding: .syntax) }
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    try flush()
                    let field = path.joined(separator: ".")
                    if checkingControls, scalars.contains(where: isRefused), !controlFields.contains(field) {
                        controlFields.append(field)
                    }
                    return String(scalars)
                case 0..<0x20:
                    throw FindingError(finding: .syntax)
                case UInt8(ascii: "\\"):
                    try flush()
                    scalars.append(try escape())
                default:
                    raw.append(byte)
                }
            }
        }

        mutating func escape() throws -> Unicode.Scalar {
            guard let byte = current else { throw FindingError(finding: .syntax) }
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{8}"
            case UInt8(ascii: "f"): return "\u{C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let first = try hex4()
                if (0xD800...0xDBFF).contains(first) {
                    try literal("\\u")
                    let second = try hex4()
                    guard (0xDC00...0xDFFF).contains(second) else { throw FindingError(finding: .syntax) }
                    let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    guard let scalar = Unicode.Scalar(value) else { throw FindingError(finding: .syntax) }
                    return scalar
                }
                guard let scalar = Unicode.Scalar(first) else { throw FindingError(finding: .syntax) }
                return scalar
            default:
                throw FindingError(finding: .syntax)
            }
        }

        mutating func hex4() throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = current else { throw FindingError(finding: .syntax) }
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw FindingError(finding: .syntax)
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
        mutating func number() throws {
            func digits() throws {
                guard let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                    throw FindingError(finding: .syntax)
                }
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            }
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else {
                try digits()
            }
            if current == UInt8(ascii: ".") {
                index += 1
                try digits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                try digits()
            }
        }
    }
}
