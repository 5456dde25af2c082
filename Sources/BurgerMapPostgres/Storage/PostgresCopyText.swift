import BurgerMapCore
import PostgresNIO

/// PostgreSQL's COPY text format: columns separated by tabs, rows ended by a newline, `\N` for
/// NULL, and backslash escapes for the backslash and the three control characters that would
/// break the layout (the field rules keep every other control character out).
enum PostgresCopyText {
    /// A row's leading number and fields (`PostgresPlaceImport.stageColumns`), without the end
    /// of the line; with `pairs`, the row's search pairs counted there as the place `position`.
    static func appendRow(
        _ position: Int, _ draft: PlaceDraft, countingPairsIn pairs: inout SearchPairCount?, to buffer: inout ByteBuffer
    ) {
        appendInteger(position, to: &buffer)
        tab(&buffer)
        append(draft.name, to: &buffer)
        tab(&buffer)
        // Swift writes the shortest text that reads back as the same double; PostgreSQL reads
        // it exactly.
        buffer.writeString(draft.lat.description)
        tab(&buffer)
        buffer.writeString(draft.lng.description)
        tab(&buffer)
        append(draft.address, to: &buffer)
        tab(&buffer)
        append(draft.city, to: &buffer)
        tab(&buffer)
        append(draft.province, to: &buffer)
        tab(&buffer)
        append(draft.postalCode, to: &buffer)
        tab(&buffer)
        append(draft.country, to: &buffer)
        tab(&buffer)
        append(draft.phone, to: &buffer)
        tab(&buffer)
        append(draft.category, to: &buffer)
        tab(&buffer)
        append(draft.website, to: &buffer)
        tab(&buffer)
        append(draft.externalId, to: &buffer)
        // Place search's folded columns (`SearchText.fold`), computed here as on every other path.
        let (searchName, searchAddress, searchNames) = (draft.searchName, draft.searchAddress, draft.searchNames)
        pairs?.add(place: Int64(position), name: searchName, names: searchNames, address: searchAddress)
        tab(&buffer)
        append(searchName, to: &buffer)
        tab(&buffer)
        append(searchAddress, to: &buffer)
        // The map cell of clusters (`PlaceCells`).
        tab(&buffer)
        buffer.writeString(String(PlaceCells.key(lat: draft.lat, lng: draft.lng)))
        // Names in other languages, hours, zone and facts (`PlaceDetails`), and the folded names.
        for text in [draft.storedNames, draft.openingHours, draft.timeZone, draft.attributes, searchNames] {
            tab(&buffer)
            append(text, to: &buffer)
        }
    }

    /// An integer in decimal, without making a string of it.
    static func appendInteger(_ value: Int, to buffer: inout ByteBuffer) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for any Int
        withUnsafeMutableBytes(of: &digits) { bytes in
            var rest = value.magnitude
            var index = bytes.count
            repeat {
                index -= 1
                bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            if value < 0 {
                index -= 1
                bytes[index] = UInt8(ascii: "-")
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[index...]))
        }
    }

    private static func tab(_ buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\t"))
    }

    static func append(_ text: String?, to buffer: inout ByteBuffer) {
        guard var text else {
            buffer.writeStaticString("\\N")
            return
        }
        text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
                buffer.writeBytes(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
    }
}
