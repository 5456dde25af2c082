/// Checks for text that people send and read, each adding a field error.
enum TextRules {
    /// Text people will read: a length in characters (grapheme clusters, as people count them)
    /// and no control characters. `storedScalars` is the bound of an older schema CHECK that
    /// counts Unicode scalars (SQLite's `length`): a text of many-scalar characters (family
    /// emoji, flags) within the character limit but over it is too long, never a failed insert.
    static func checkText(
        _ text: String, field: String, _ length: ClosedRange<Int>, allowingLineBreaks: Bool = false,
        storedScalars: Int? = nil, into errors: inout [FieldError]
    ) {
        let controls = text.unicodeScalars.contains {
            $0.properties.generalCategory == .control
                && !(allowingLineBreaks && ($0 == "\n" || $0 == "\r" || $0 == "\t"))
        }
        if controls {
            errors.append(FieldError(field: field, code: "control_characters", .fieldControlCharacters))
            return
        }
        let count = errors.count
        checkLength(text, field: field, length, into: &errors)
        if let storedScalars, errors.count == count, text.unicodeScalars.count > storedScalars {
            errors.append(lengthError(field: field, length, tooShort: false))
        }
    }

    /// Prose people write (a review, a comment): 1…`maxLength` characters, line breaks allowed,
    /// not only white space.
    static func checkProse(
        _ text: String, field: String, maxLength: Int, storedScalars: Int? = nil, into errors: inout [FieldError]
    ) {
        if text.allSatisfy(\.isWhitespace) {
            errors.append(lengthError(field: field, 1...maxLength, tooShort: true))
            return
        }
        checkText(
            text, field: field, 1...maxLength, allowingLineBreaks: true, storedScalars: storedScalars, into: &errors)
    }

    static func checkLength(_ text: String, field: String, _ length: ClosedRange<Int>, into errors: inout [FieldError])
    {
        // Bound the work before counting characters of a huge string.
        let count = text.utf8.count > length.upperBound * 64 ? Int.max : text.count
        // The maximum also holds in code points (never fewer than characters), as the OpenAPI
        // document's `maxLength` counts them: "~🏻" is one character but two code points.
        let tooLong = count > length.upperBound || text.unicodeScalars.count > length.upperBound
        guard count < length.lowerBound || tooLong else { return }
        errors.append(lengthError(field: field, length, tooShort: !tooLong))
    }

    private static func lengthError(field: String, _ length: ClosedRange<Int>, tooShort: Bool) -> FieldError {
        if length.lowerBound == 0 {
            return FieldError(field: field, code: "too_long", .fieldTooLong, ["max": "\(length.upperBound)"])
        }
        return FieldError(
            field: field, code: tooShort ? "too_short" : "too_long", .fieldLength,
            ["min": "\(length.lowerBound)", "max": "\(length.upperBound)"])
    }
}
