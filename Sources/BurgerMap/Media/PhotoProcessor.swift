import BurgerMapCore

/// A photo re-encoded for storage: the full-size JPEG and its thumbnail, upright, with no metadata.
public struct ProcessedPhoto: Sendable {
    public var full: [UInt8]
    public var width: Int
    public var height: Int
    public var thumbnail: [UInt8]
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
}

/// Turns uploaded JPEG or PNG bytes into the stored JPEG pair, by the contract's rules: type from
/// the bytes, at most 50 megapixels declared (checked before any pixel is decoded), EXIF
/// orientation applied to the pixels, longest side at most 2048 px (never upscaled) and a
/// thumbnail of at most 400 px, baseline JPEG with optimized Huffman tables and no metadata.
public struct PhotoProcessor: Sendable {
    public var maxPixels = 50_000_000
    public var fullSide = 2048
    public var thumbnailSide = 400
    public var fullQuality = 85
    public var thumbnailQuality = 80

    public init() {}

    /// Processes one uploaded image. CPU-heavy (tens of milliseconds): call it off the event loop.
    /// When `cores` has a core to spare, a photo that needs no turn and no resize is encoded on a
    /// second thread while it is decoded.
    public func process(_ bytes: UnsafeRawBufferPointer, cores: CoreBudget? = nil) throws(ImageError)
        -> ProcessedPhoto
    {
        guard !bytes.isEmpty else { throw .corrupt("empty file") }
        guard let format = ImageFormat.detect(bytes) else { throw .unsupportedType }
        let decoded: RGBImage
        var orientation = 1
        switch format {
        case .jpeg:
            // libjpeg itself refuses sides over 65,500 px as a corrupt file; read the frame header
            // first so that every oversized declaration gets the same answer.
            if let declared = Self.declaredJPEGSize(bytes) {
                try checkDeclaredSize(width: declared.width, height: declared.height)
            }
            let reader = try JPEGReader(bytes)
            try checkDeclaredSize(width: Int(reader.info.width), height: Int(reader.info.height))
            orientation = Int(reader.info.orientation)
            let longest = max(Int(reader.info.width), Int(reader.info.height))
            let scale = Self.scaleNumerator(longestSide: longest, target: fullSide)
            if orientation == 1, Self.scaledLongestSide(longest, scale) <= fullSide, let cores, cores.borrow() {
                defer { cores.giveBack() }
                let (image, full) = try reader.decodeAndEncode(scaleNumerator: scale, quality: fullQuality)
                return try finish(full: image, encoded: full)
            }
            decoded = try reader.decode(scaleNumerator: scale)
        case .png:
            let reader = try PNGReader(bytes)
            try checkDeclaredSize(width: reader.width, height: reader.height)
            decoded = try reader.decode()
        }
        let (fullWidth, fullHeight) = Self.fit(width: decoded.width, height: decoded.height, within: fullSide)
        let full = try decoded.resized(width: fullWidth, height: fullHeight).oriented(orientation)
        return try finish(full: full, encoded: JPEGWriter.encode(full, quality: fullQuality))
    }

    /// The stored pair from the upright full-size image and its JPEG: adds the thumbnail.
    private func finish(full: RGBImage, encoded: [UInt8]) throws(ImageError) -> ProcessedPhoto {
        let (thumbWidth, thumbHeight) = Self.fit(width: full.width, height: full.height, within: thumbnailSide)
        let thumbnail = try full.resized(width: thumbWidth, height: thumbHeight)
        return ProcessedPhoto(
            full: encoded, width: full.width, height: full.height,
            thumbnail: try JPEGWriter.encode(thumbnail, quality: thumbnailQuality), thumbnailWidth: thumbnail.width,
            thumbnailHeight: thumbnail.height)
    }

    /// libjpeg's output size for a side at scale n/8 (it rounds up).
    static func scaledLongestSide(_ side: Int, _ numerator: Int) -> Int {
        (side * numerator + 7) / 8
    }

    private func checkDeclaredSize(width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else { throw .corrupt("no pixels") }
        guard width * height <= maxPixels else { throw .tooManyPixels(width: width, height: height) }
    }

    /// The width and height in a JPEG's first frame header (SOF0…SOF15 but DHT, JPG and DAC),
    /// found by walking the marker segments; `nil` when the walk fails (libjpeg then reports it).
    static func declaredJPEGSize(_ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        var index = 2
        while index + 9 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {
                index += 1
                continue
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return (width, height)
            }
            guard length >= 2, marker != 0xDA else { return nil }
            index += 2 + length
        }
        return nil
    }

    /// The DCT scale n/8 to decode at (8 = none). libjpeg-turbo has fast (SIMD) paths for 1/2,
    /// 1/4 and 1/8 only: other eighths cost as much as a full decode. So the image is decoded at
    /// the smallest of those that keeps its longest side at least 15/16 of `target`, trading up
    /// to 6 % of resolution for about half the decoding time: a 4000 × 3000 photo is stored at
    /// 2000 × 1500 rather than decoded in full and shrunk to 2048 × 1536.
    static func scaleNumerator(longestSide: Int, target: Int) -> Int {
        var numerator = 8
        while numerator > 1 && longestSide * (numerator / 2) / 8 >= target * 15 / 16 {
            numerator /= 2
        }
        return numerator
    }

    /// `width` × `height` shrunk to fit `side` on its longest side, aspect kept, never enlarged.
    static func fit(width: Int, height: Int, within side: Int) -> (Int, Int) {
        let longest = max(width, height)
        guard longest > side else { return (width, height) }
        let scale = Double(side) / Double(longest)
        return (
            max(1, min(side, Int((Double(width) * scale).rounded()))),
            max(1, min(side, Int((Double(height) * scale).rounded())))
        )
    }
}
