import Foundation

/// A bounded text field and its one rule, shared by the API, the importer and the schema.
///
/// Lengths count Unicode code points: what SQLite's `length()` and PostgreSQL's `char_length()`
/// count, so a text that passes here always fits the schema's CHECK, a bad row is skipped instead
/// of failing an insert, and every message states the bound that is really applied. (A family
/// emoji is several code points; the OpenAPI document says so.)
package struct TextField: Sendable {
    /// The field's name as clients send it.
    package let name: String
    /// Allowed length in code points.
    package let length: ClosedRange<Int>
    /// Whether `\n`, `\r` and `\t` are allowed (prose); other control characters never are.
    package var allowsLineBreaks = false
    /// Whether a text of only white space counts as empty (prose must say something).
    package var needsContent = false
    /// Whether control characters are refused (everything people read; not passwords).
    package var refusesControls = true
    /// Whether the text must be an `http://` or `https://` address: clients turn it into a
    /// link, and a `javascript:` one would run in whoever taps it.
    package var isWebAddress = false

    package init(
        _ name: String, _ length: ClosedRange<Int>, allowsLineBreaks: Bool = false, needsContent: Bool = false,
        refusesControls: Bool = true, isWebAddress: Bool = false
    ) {
        self.name = name
        self.length = length
        self.allowsLineBreaks = allowsLineBreaks
        self.needsContent = needsContent
        self.refusesControls = refusesControls
        self.isWebAddress = isWebAddress
    }

    /// The same rule for a field that a client names otherwise (the LookForRealBurger app's
    /// generic posts call a review's text `content`).
    package func named(_ name: String) -> TextField {
        TextField(
            name, length, allowsLineBreaks: allowsLineBreaks, needsContent: needsContent,
            refusesControls: refusesControls, isWebAddress: isWebAddress)
    }

    /// Appends the text's problem, if it has one.
    package func check(_ text: String, into errors: inout [FieldError]) {
        if let problem = problem(text) { errors.append(problem) }
    }

    /// The first rule the text breaks, or `nil`.
    package func problem(_ text: String) -> FieldError? {
        if needsContent, text.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
            return lengthError(tooShort: true)
        }
        let (count, hasControl) = Self.codePointsAndControls(text, allowingLineBreaks: allowsLineBreaks)
        if refusesControls, hasControl {
            return FieldError(field: name, code: "control_characters", .fieldControlCharacters)
        }
        guard length.contains(count) else { return lengthError(tooShort: count < length.lowerBound) }
        if isWebAddress, !Self.isWebAddress(text) {
            return FieldError(field: name, code: "not_web_address", .fieldNotWebAddress)
        }
        return nil
    }

    /// How many code points the text has, and whether one is a control character (line breaks
    /// and tabs aside when allowed), in one pass over its UTF-8 bytes: a code point starts at
    /// every byte but a continuation byte, and the controls are the bytes below 0x20, 0x7F, and
    /// U+0080–U+009F (0xC2 0x80–0xC2 0x9F): general category Cc, a fixed set since Unicode 1.1.
    /// Looking the category up per code point (`properties.generalCategory`) took a fifth of a
    /// 1,000,000-row import in a profile; a test checks this scan against it for every code point.
    package static func codePointsAndControls(_ text: String, allowingLineBreaks: Bool) -> (
        count: Int, hasControl: Bool
    ) {
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (count: Int, hasControl: Bool) {
            var count = 0
            var control = false
            var previous: UInt8 = 0
            for byte in bytes {
                if byte & 0xC0 != 0x80 { count += 1 }
                if byte < 0x20 {
                    if !(allowingLineBreaks && (byte == 0x0A || byte == 0x0D || byte == 0x09)) { control = true }
                } else if byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) {
                    control = true
                }
                previous = byte
            }
            return (count, control)
        }
        if let answer = text.utf8.withContiguousStorageIfAvailable(scan) { return answer }
        var copy = text
        return copy.withUTF8(scan)
    }

    /// `http://` or `https://` (any case), then a host, and no white space inside; white space
    /// around it is trimmed as for every text, and nothing at all clears the field.
    private static func isWebAddress(_ text: String) -> Bool {
        // Compared scalar by scalar: `String.hasPrefix` compares characters, and a combining
        // mark after "//" would make that "/" part of another character.
        let address = text.trimmingCharacters(in: .whitespacesAndNewlines).unicodeScalars
        guard !address.isEmpty else { return true }
        func asciiLowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
            ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }
        for scheme in ["http://", "https://"] {
            let expected = Array(scheme.unicodeScalars)
            guard address.count > expected.count, address.prefix(expected.count).map(asciiLowercased) == expected
            else { continue }
            let rest = address.dropFirst(expected.count)
            return rest.first != "/" && !rest.contains(where: \.properties.isWhitespace)
        }
        return false
    }

    private func lengthError(tooShort: Bool) -> FieldError {
        if length.lowerBound == 0 {
            return FieldError(field: name, code: "too_long", .fieldTooLong, ["max": "\(length.upperBound)"])
        }
        return FieldError(
            field: name, code: tooShort ? "too_short" : "too_long", .fieldLength,
            ["min": "\(length.lowerBound)", "max": "\(length.upperBound)"])
    }
}

extension TextField {
    // Places. The name's bound is the schema's CHECK (length(name) BETWEEN 1 AND 300).
    package static let placeName = TextField("name", 1...300)
    package static let placeAddress = TextField("address", 0...500)
    package static let placeCity = TextField("city", 0...200)
    package static let placeProvince = TextField("province", 0...200)
    package static let placePostalCode = TextField("postal_code", 0...50)
    package static let placeCountry = TextField("country", 0...100)
    package static let placePhone = TextField("phone", 0...50)
    package static let placeCategory = TextField("category", 0...100)
    package static let placeWebsite = TextField("website", 0...2000, isWebAddress: true)
    package static let placeSource = TextField("source", 0...100)
    package static let placeExternalID = TextField("external_id", 0...200)

    // Accounts. The schema allows nicknames up to 200 and bios up to 500 code points.
    package static let password = TextField("password", 8...128, refusesControls: false)
    package static let nickname = TextField("nickname", 2...30)
    package static let bio = TextField("bio", 0...500, allowsLineBreaks: true)

    // Reviews and comments: prose. The schema bounds review texts to 2000 code points and
    // comments to 64,000 bytes (1000 code points are at most 4000 bytes).
    package static let reviewText = TextField("text", 1...2000, allowsLineBreaks: true, needsContent: true)
    /// A review's optional headline; the schema's backstop bounds its bytes (200 × 64).
    package static let reviewTitle = TextField("title", 1...200, needsContent: true)
    package static let commentText = TextField("text", 1...1000, allowsLineBreaks: true, needsContent: true)

    // Trust and safety: what a reporter adds to a report, and a moderator's reason.
    package static let reportText = TextField("text", 0...1000, allowsLineBreaks: true)
    package static let moderationReason = TextField("reason", 0...500, allowsLineBreaks: true)
}
