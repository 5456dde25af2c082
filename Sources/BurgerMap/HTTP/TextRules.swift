/// Checks for text that people send and read, each adding a field error.
enum TextRules {
    /// Text people will read: a length in characters (grapheme clusters, as people count them)
    /// and no control characters.
    static func checkText(
        _ text: String, field: String, _ length: ClosedRange<Int>, allowingLineBreaks: Bool = false,
        into errors: inout [FieldError]
    ) {
        let controls = text.unicodeScalars.contains {
            $0.properties.generalCategory == .control
                && !(allowingLineBreaks && ($0 == "\n" || $0 == "\r" || $0 == "\t"))
        }
        if controls {
            errors.append(FieldError(field: field, code: "control_characters", .fieldControlCharacters))
            return
        }
        checkLength(text, field: field, length, into: &errors)
    }

    /// Prose people write (a review, a comment): 1…`maxLength` characters, line breaks allowed,
    /// not only white space.
    static func checkProse(_ text: String, field: String, maxLength: Int, into errors: inout [FieldError]) {
        if text.allSatisfy(\.isWhitespace) {
            errors.append(
                FieldError(field: field, code: "too_short", .fieldLength, ["min": "1", "max": "\(maxLength)"]))
            return
        }
        checkText(text, field: field, 1...maxLength, allowingLineBreaks: true, into: &errors)
    }

    static func checkLength(_ text: String, field: String, _ length: ClosedRange<Int>, into errors: inout [FieldError])
    {
        // Bound the work before counting characters of a huge string.
        let count = text.utf8.count > length.upperBound * 64 ? Int.max : text.count
        guard !length.contains(count) else { return }
        if length.lowerBound == 0 {
            errors.append(FieldError(field: field, code: "too_long", .fieldTooLong, ["max": "\(length.upperBound)"]))
        } else {
            errors.append(
                FieldError(
                    field: field, code: count < length.lowerBound ? "too_short" : "too_long", .fieldLength,
                    ["min": "\(length.lowerBound)", "max": "\(length.upperBound)"]))
        }
    }
}
