import BurgerMapCore
import PostgresNIO

/// A walk's target in PostGIS's `geometry` text input: hex EWKB (little-endian, SRID 4326), so
/// the coordinates reach the server exactly as `ST_MakePoint` would have them.
extension PostgresNearestWalk.Target: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { .null }
    static var psqlFormat: PostgresFormat { .text }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        let coordinates: [Double]
        switch self {
        case .point(let lng, let lat):
            // Byte order 1 (little-endian), type 0x20000001 (point with an SRID), SRID 4326.
            byteBuffer.writeString("0101000020E6100000")
            coordinates = [lng, lat]
        case .pole(let north):
            // Type 0x20000002 (line string with an SRID), SRID 4326, two points.
            byteBuffer.writeString("0102000020E610000002000000")
            coordinates = [-180, north ? 90 : -90, 180, north ? 90 : -90]
        }
        let digits = Array("0123456789ABCDEF".utf8)
        for value in coordinates {
            var bits = value.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { bytes in
                for byte in bytes {
                    byteBuffer.writeInteger(digits[Int(byte >> 4)])
                    byteBuffer.writeInteger(digits[Int(byte & 0x0F)])
                }
            }
        }
    }
}
