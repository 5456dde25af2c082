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
