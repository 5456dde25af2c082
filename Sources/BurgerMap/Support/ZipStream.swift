import BurgerMapCore
import NIOCore

/// Writes a ZIP archive (PKWARE APPNOTE 6.3: "stored" entries, no compression) as a stream of
/// buffers: each entry is written as soon as its bytes are known, then the central directory.
/// JPEGs do not shrink, and a JSON document of one account is small; so nothing is deflated.
///
/// Written here because the ZIP package on the mirror (ZIPFoundation) builds archives in a file
/// or in memory, and a data export is meant to stream: this is the format's few records and
/// CRC-32, nothing more. Limits of the plain format, checked: at most 65,535 entries and 4 GiB.
struct ZipStream {
    private struct Entry {
        var name: [UInt8]
        var crc: UInt32
        var size: UInt32
        var offset: UInt32
    }

    private var entries: [Entry] = []
    private var offset: UInt64 = 0
    /// The archive's modification time and date, in MS-DOS form (every entry gets the same).
    private let dosTime: UInt16
    private let dosDate: UInt16

    /// The most entries and bytes of the plain (not ZIP64) format.
    static let maximumEntries = 65_535
    static let maximumBytes: UInt64 = 0xFFFF_FFFF

    init(at time: Timestamp) {
        let seconds = time.milliseconds / 1000
        let days = seconds.floorDivided(by: 86_400)
        let secondsOfDay = seconds - days * 86_400
        // Civil date from days since 1970 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        dosDate = UInt16(clamping: (max(year, 1980) - 1980) << 9 | month << 5 | day)
        dosTime = UInt16(
            clamping: (secondsOfDay / 3600) << 11 | (secondsOfDay % 3600 / 60) << 5 | (secondsOfDay % 60) / 2)
    }

    /// Whether another entry of `size` bytes still fits the plain format.
    func fits(_ size: Int) -> Bool {
        entries.count < Self.maximumEntries - 1
            && offset + UInt64(size) + 30 + 256 + UInt64(entries.count + 1) * 302 < Self.maximumBytes
    }

    /// The local header and bytes of one entry.
    mutating func entry(named name: String, _ bytes: [UInt8]) -> ByteBuffer {
        let nameBytes = Array(name.utf8)
        let crc = CRC32.checksum(bytes)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(30 + nameBytes.count + bytes.count)
        buffer.writeInteger(UInt32(0x0403_4b50), endianness: .little)
        buffer.writeInteger(UInt16(20), endianness: .little)  // version needed: 2.0
        buffer.writeInteger(UInt16(0x0800), endianness: .little)  // names are UTF-8
        buffer.writeInteger(UInt16(0), endianness: .little)  // stored
        buffer.writeInteger(dosTime, endianness: .little)
        buffer.writeInteger(dosDate, endianness: .little)
        buffer.writeInteger(crc, endianness: .little)
        buffer.writeInteger(UInt32(bytes.count), endianness: .little)
        buffer.writeInteger(UInt32(bytes.count), endianness: .little)
        buffer.writeInteger(UInt16(nameBytes.count), endianness: .little)
        buffer.writeInteger(UInt16(0), endianness: .little)
        buffer.writeBytes(nameBytes)
        buffer.writeBytes(bytes)
        entries.append(Entry(name: nameBytes, crc: crc, size: UInt32(bytes.count), offset: UInt32(offset)))
        offset += UInt64(buffer.readableBytes)
        return buffer
    }

    /// The central directory and its end record.
    func end() -> ByteBuffer {
        var buffer = ByteBuffer()
        var directorySize = 0
        for entry in entries {
            let start = buffer.writerIndex
            buffer.writeInteger(UInt32(0x0201_4b50), endianness: .little)
            buffer.writeInteger(UInt16(0x0314), endianness: .little)  // made by: Unix, 2.0
            buffer.writeInteger(UInt16(20), endianness: .little)
            buffer.writeInteger(UInt16(0x0800), endianness: .little)
            buffer.writeInteger(UInt16(0), endianness: .little)
            buffer.writeInteger(dosTime, endianness: .little)
            buffer.writeInteger(dosDate, endianness: .little)
            buffer.writeInteger(entry.crc, endianness: .little)
            buffer.writeInteger(entry.size, endianness: .little)
            buffer.writeInteger(entry.size, endianness: .little)
            buffer.writeInteger(UInt16(entry.name.count), endianness: .little)
            buffer.writeInteger(UInt16(0), endianness: .little)  // extra
            buffer.writeInteger(UInt16(0), endianness: .little)  // comment
            buffer.writeInteger(UInt16(0), endianness: .little)  // disk
            buffer.writeInteger(UInt16(0), endianness: .little)  // internal attributes
            buffer.writeInteger(UInt32(0o100644) << 16, endianness: .little)  // a regular file, rw-r--r--
            buffer.writeInteger(entry.offset, endianness: .little)
            buffer.writeBytes(entry.name)
            directorySize += buffer.writerIndex - start
        }
        buffer.writeInteger(UInt32(0x0605_4b50), endianness: .little)
        buffer.writeInteger(UInt16(0), endianness: .little)
        buffer.writeInteger(UInt16(0), endianness: .little)
        buffer.writeInteger(UInt16(entries.count), endianness: .little)
        buffer.writeInteger(UInt16(entries.count), endianness: .little)
        buffer.writeInteger(UInt32(directorySize), endianness: .little)
        buffer.writeInteger(UInt32(offset), endianness: .little)
        buffer.writeInteger(UInt16(0), endianness: .little)
        return buffer
    }
}

/// CRC-32 (IEEE 802.3, the ZIP and gzip checksum), table-driven.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
