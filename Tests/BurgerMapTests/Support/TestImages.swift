import Foundation

@testable import BurgerMap
@testable import BurgerMapCore

/// Real image files for tests, made with the service's own libjpeg writer (and a minimal PNG
/// writer below), in every awkward variety the upload path must handle.
enum TestImages {
    /// Colours of the four quadrants of `quadrants(...)`, top-left, top-right, bottom-left, bottom-right.
    static let quadrantColors: [[UInt8]] = [[230, 30, 30], [30, 200, 30], [30, 30, 230], [240, 240, 240]]

    /// RGB pixels split into four coloured quadrants, so that a turn or flip shows.
    static func quadrantPixels(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let quadrant = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)
                pixels.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: quadrantColors[quadrant])
            }
        }
        return pixels
    }

    /// A baseline JPEG with coloured quadrants.
    static func jpeg(width: Int = 320, height: Int = 200, quality: Int = 90, progressive: Bool = false) -> [UInt8] {
        try! JPEGWriter.encode(
            pixels: quadrantPixels(width: width, height: height), width: width, height: height, quality: quality,
            progressive: progressive)
    }

    /// A photo-like JPEG (gradients and noise) of about `megabytes` per 12 megapixels at quality 95.
    static func noisyJPEG(width: Int, height: Int, seed: UInt64 = 1) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        for index in pixels.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[index] = UInt8(truncatingIfNeeded: (index / 3 % width) / 8 &+ Int(state >> 58))
        }
        return try! JPEGWriter.encode(pixels: pixels, width: width, height: height, quality: 95)
    }

    /// A grayscale JPEG: left half dark, right half light.
    static func grayscaleJPEG(width: Int = 200, height: Int = 100) -> [UInt8] {
        let pixels = (0..<width * height).map { UInt8($0 % width < width / 2 ? 40 : 210) }
        return try! JPEGWriter.encode(pixels: pixels, width: width, height: height, color: .gray, quality: 95)
    }

    /// An Adobe-style (inverted) CMYK JPEG that shows pure red.
    static func cmykRedJPEG(width: Int = 160, height: Int = 120) -> [UInt8] {
        // Red is C=0 M=100% Y=100% K=0; Adobe files store the inverted values.
        let pixel: [UInt8] = [255, 0, 0, 255]
        let pixels = (0..<width * height).flatMap { _ in pixel }
        return try! JPEGWriter.encode(pixels: pixels, width: width, height: height, color: .cmyk, quality: 95)
    }

    /// `jpeg` with an EXIF APP1 segment right after SOI: an orientation tag and, if asked, a GPS
    /// IFD with a latitude, as phones write them.
    static func withEXIF(_ jpeg: [UInt8], orientation: UInt16, gps: Bool = false) -> [UInt8] {
        var tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8]
        let entries = gps ? 2 : 1
        tiff += [0, UInt8(entries)]
        tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1] + [UInt8(orientation >> 8), UInt8(orientation & 0xFF), 0, 0]
        if gps {
            let gpsOffset = UInt32(8 + 2 + entries * 12 + 4)
            tiff += [0x88, 0x25, 0, 4, 0, 0, 0, 1] + bigEndian(gpsOffset)
        }
        tiff += [0, 0, 0, 0]
        if gps {
            // GPSLatitudeRef "N" and GPSLongitudeRef "E", inline ASCII values.
            tiff += [0, 2]
            tiff += [0, 1, 0, 2, 0, 0, 0, 2] + Array("N".utf8) + [0, 0, 0]
            tiff += [0, 3, 0, 2, 0, 0, 0, 2] + Array("E".utf8) + [0, 0, 0]
            tiff += [0, 0, 0, 0]
        }
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }

    /// `jpeg` with the dimensions in its SOF header replaced (a decompression-bomb header).
    static func withDeclaredSize(_ jpeg: [UInt8], width: UInt16, height: UInt16) -> [UInt8] {
        var bytes = jpeg
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { break }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xC0 || marker == 0xC2 {
                bytes[index + 5] = UInt8(height >> 8)
                bytes[index + 6] = UInt8(height & 0xFF)
                bytes[index + 7] = UInt8(width >> 8)
                bytes[index + 8] = UInt8(width & 0xFF)
                return bytes
            }
            index += 2 + length
        }
        fatalError("no SOF segment")
    }

    /// The JPEG markers of a file, in order, up to the start of scan.
    static func markers(_ jpeg: [UInt8]) -> [UInt8] {
        var markers: [UInt8] = []
        var index = 2
        while index + 4 <= jpeg.count, jpeg[index] == 0xFF {
            let marker = jpeg[index + 1]
            markers.append(marker)
            if marker == 0xDA { break }
            index += 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
        }
        return markers
    }

    /// Decodes a JPEG with the service's own libjpeg reader (full size, RGB).
    static func decode(_ jpeg: [UInt8]) throws -> RGBImage {
        try jpeg.withUnsafeBytes { bytes in
            let reader = try JPEGReader(bytes)
            return try reader.decode(scaleNumerator: 8)
        }
    }

    /// The RGB of one pixel.
    static func pixel(_ image: RGBImage, x: Int, y: Int) -> [UInt8] {
        let index = (y * image.width + x) * 3
        return Array(image.pixels[index..<index + 3])
    }

    /// Whether two colours are within `tolerance` in every channel (JPEG is lossy).
    static func close(_ a: [UInt8], _ b: [UInt8], tolerance: Int = 40) -> Bool {
        zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }

    /// An RGBA PNG: left half fully transparent, right half opaque red. `declaredSize` puts other
    /// dimensions in its header (with a valid checksum) than its pixel data has.
    static func transparentPNG(width: Int = 64, height: Int = 32, declaredSize: (Int, Int)? = nil) -> [UInt8] {
        var raw: [UInt8] = []
        for _ in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                raw += x < width / 2 ? [0, 0, 0, 0] : [220, 20, 20, 255]
            }
        }
        // zlib stream of stored (uncompressed) deflate blocks.
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        zlib += bigEndian(b << 16 | a)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let (headerWidth, headerHeight) = declaredSize ?? (width, height)
        png += chunk("IHDR", bigEndian(UInt32(headerWidth)) + bigEndian(UInt32(headerHeight)) + [8, 6, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return png
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// Bytes of other file types that phones and people upload by mistake.
    static let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 255, 255, 255, 0, 0, 0, 0x3B]
    static let pdf: [UInt8] = Array("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n".utf8)
    static let heic: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
}
